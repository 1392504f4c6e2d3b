import FieldpassDomain

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

    /// A page of the audit log, newest first: entries of the environment with an id below
    /// `before` (any, without it) that match `filter`, each with the names of what it refers
    /// to by id (``AuditNameColumns``). The page first, then the names of its entries only.
    static func auditPage(environmentID: String, filter: AuditFilter, before: Int64?, limit: Int) -> BuiltStatement {
        BuiltStatement { sql, bind in
            """
            SELECT p.id, p.actor, p.action, p.target, p.before, p.after, p.at,
            \(AuditNameColumns.sql(sql))
            FROM (
                SELECT id, environment_id, actor, action, target, before, after, at FROM audit_log
                WHERE environment_id = \(bind(environmentID)) AND id < \(bind(before ?? Int64.max))\(ConsoleTables.auditConditions(filter, bind: bind))
                ORDER BY id DESC LIMIT \(bind(limit))
            ) p
            ORDER BY p.id DESC
            """
        }
    }

    /// A page of the environment's people matching `query`, by email in byte order. The page
    /// first, then each of its people's last sighting: PostgreSQL would otherwise work out the
    /// sighting of every person it sorts, not just of the page's.
    static func peoplePage(_ query: PeopleQuery, environmentID: String) -> BuiltStatement {
        BuiltStatement { sql, bind in
            """
            SELECT p.*, (SELECT MAX(d.last_seen_at) FROM devices d WHERE d.user_id = p.id) AS last_seen_at
            FROM (
                SELECT \(UserStatements.columns(of: "u")), u.signed_in_at, s.display_name AS scim_display_name
                FROM users u LEFT JOIN scim_users s ON s.user_id = u.id
                WHERE u.environment_id = \(bind(environmentID))\(ConsoleTables.peopleConditions(query, bind: bind))
                ORDER BY \(sql.bytewise("u.email")) LIMIT \(bind(query.limit)) OFFSET \(bind(query.offset))
            ) p
            ORDER BY \(sql.bytewise("p.email"))
            """
        }
    }

    /// The session with this hash and, if there is one, its person (``UserStatements/columns``),
    /// the session's own columns named apart: session hash.
    static let sessionWithPerson = SharedStatement { value in
        """
        SELECT c.id_hash, c.user_id, c.environment_id AS session_environment_id, c.created_at AS session_created_at,
               c.expires_at, c.idle_expires_at, \(UserStatements.columns(of: "u"))
        FROM console_sessions c LEFT JOIN users u ON u.id = c.user_id
        WHERE c.id_hash = \(value(1))
        """
    }

    /// Moves a session's idle end, answering a row unless it was ended meanwhile: idle end, session hash.
    static let moveIdleEnd = SharedStatement { value in
        "UPDATE console_sessions SET idle_expires_at = \(value(1)) WHERE id_hash = \(value(2)) RETURNING id_hash"
    }

    /// Who has signed in on a device and waits for data (``OnboardingWaiting``), longest first:
    /// environment, how many.
    static let waitingForData = SharedStatement { value in
        """
        SELECT \(UserStatements.columns(of: "u")), u.signed_in_at, NULL AS scim_display_name, NULL AS last_seen_at
        FROM users u JOIN realms r ON r.user_id = u.id
        WHERE u.environment_id = \(value(1)) AND u.signed_in_at IS NOT NULL AND u.disabled_at IS NULL AND NOT r.initialized
          AND \(OnboardingWaiting.hasSignedInDevice)
        ORDER BY u.signed_in_at LIMIT \(value(2))
        """
    }
}
