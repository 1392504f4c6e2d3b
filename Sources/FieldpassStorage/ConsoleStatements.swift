/// The console's sign-ins and sessions, and the purges of what it keeps, written once for both
/// stores (``SharedStatement``; the tables are ``ConsoleTables``).
enum ConsoleStatements {
    static let beginSignIn = SharedStatement { value in
        """
        INSERT INTO console_signins (state_hash, environment_id, email, nonce, code_verifier, browser_binding, expires_at)
        VALUES (\((1...7).map(value).joined(separator: ", ")))
        """
    }

    /// Takes the sign-in of this state if it has not expired: one statement, so of two
    /// callbacks with the same state, one takes it.
    static let takeSignIn = SharedStatement { value in
        "DELETE FROM console_signins WHERE state_hash = \(value(1)) AND expires_at > \(value(2)) RETURNING *"
    }

    static let createSession = SharedStatement { value in
        """
        INSERT INTO console_sessions (id_hash, user_id, environment_id, created_at, expires_at, idle_expires_at)
        VALUES (\((1...6).map(value).joined(separator: ", ")))
        """
    }

    static let endSession = SharedStatement { value in "DELETE FROM console_sessions WHERE id_hash = \(value(1))" }

    /// The sign-ins expired by the time given.
    static let purgeSignIns = SharedStatement { value in "DELETE FROM console_signins WHERE expires_at <= \(value(1))" }

    /// The sessions ended by the time given, and those of disabled people.
    static let purgeSessions = SharedStatement { value in
        "DELETE FROM console_sessions WHERE idle_expires_at <= \(value(1)) OR expires_at <= \(value(1)) OR \(ConsoleTables.disabledPerson)"
    }

    /// The outcomes counted before the time given.
    static let purgeOutcomes = SharedStatement { value in "DELETE FROM onboarding_outcomes WHERE at < \(value(1))" }
}
