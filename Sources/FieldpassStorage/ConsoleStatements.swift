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

    /// Ends every console session of the person.
    static let endSessionsOf = SharedStatement { value in "DELETE FROM console_sessions WHERE user_id = \(value(1))" }

    /// The sign-ins expired by the time given.
    static let purgeSignIns = SharedStatement { value in "DELETE FROM console_signins WHERE expires_at <= \(value(1))" }

    /// The sessions ended by the time given, and those of disabled people.
    static let purgeSessions = SharedStatement { value in
        "DELETE FROM console_sessions WHERE idle_expires_at <= \(value(1)) OR expires_at <= \(value(1)) OR \(ConsoleTables.disabledPerson)"
    }

    /// The outcomes counted before the time given.
    static let purgeOutcomes = SharedStatement { value in "DELETE FROM onboarding_outcomes WHERE at < \(value(1))" }

    /// How many times each outcome and reason was counted since a time: environment, time.
    static let outcomeCounts = SharedStatement { value in
        """
        SELECT outcome, reason, COUNT(*) AS n FROM onboarding_outcomes
        WHERE environment_id = \(value(1)) AND at >= \(value(2)) GROUP BY outcome, reason
        """
    }

    /// A page of the audit log, newest first: the placeholders of the environment and of the id
    /// the page ends before, the filter's conditions (``ConsoleTables/auditConditions(_:bind:)``),
    /// and the placeholder of the page's length.
    static func auditPage(environment: String, before: String, conditions: String, limit: String) -> String {
        """
        SELECT id, actor, action, target, before, after, at FROM audit_log
        WHERE environment_id = \(environment) AND id < \(before)\(conditions) ORDER BY id DESC LIMIT \(limit)
        """
    }
}
