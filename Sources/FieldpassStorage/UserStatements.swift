/// The statements on people both stores share (``SharedStatement``).
enum UserStatements {
    /// What ``UserRecord`` reads.
    static let columns = "id, environment_id, email, role, created_at, idp_issuer, idp_subject, disabled_at"

    /// ``columns`` of the table named `table` in a statement.
    static func columns(of table: String) -> String {
        columns.split(separator: ", ").map { "\(table).\($0)" }.joined(separator: ", ")
    }

    /// The environment's people, by email in byte order: environment.
    static let inEnvironment = SharedStatement(dialects: { sql in
        "SELECT \(columns) FROM users WHERE environment_id = \(sql.value(1)) ORDER BY \(sql.bytewise("email"))"
    })

    /// The person with this id, if they are of the environment: id, environment.
    static let user = SharedStatement { value in
        "SELECT \(columns) FROM users WHERE id = \(value(1)) AND environment_id = \(value(2))"
    }

    /// The person with this id, read to lock them: id.
    static let holder = SharedStatement { value in "SELECT id FROM users WHERE id = \(value(1))" }

    /// The person of the environment with this email: environment, email.
    static let userByEmail = SharedStatement { value in
        "SELECT \(columns) FROM users WHERE environment_id = \(value(1)) AND email = \(value(2))"
    }

    /// The id of the person of the environment with this email: environment, email.
    static let idByEmail = SharedStatement { value in
        "SELECT id FROM users WHERE environment_id = \(value(1)) AND email = \(value(2))"
    }

    /// What a sign-in decides on (``SignInRules/User``), by id.
    static let signingIn = SharedStatement { value in
        "SELECT environment_id, role, idp_issuer, idp_subject, disabled_at, signed_in_at FROM users WHERE id = \(value(1))"
    }

    /// Another person of the environment bound to the subject at this issuer, or to it at no
    /// issuer yet: environment, subject, issuer, the person signing in.
    static let identityHolder = SharedStatement { value in
        """
        SELECT id FROM users WHERE environment_id = \(value(1)) AND idp_subject = \(value(2))
          AND (idp_issuer = \(value(3)) OR idp_issuer IS NULL) AND id <> \(value(4))
        """
    }

    /// Binds the person to the identity they signed in with: issuer, subject, time, id.
    static let signedIn = SharedStatement { value in
        "UPDATE users SET idp_issuer = \(value(1)), idp_subject = \(value(2)), signed_in_at = \(value(3)) WHERE id = \(value(4))"
    }

    /// Changes a person's email unless another person of the environment has it: answers a row when changed.
    static let setEmail = SharedStatement { value in
        """
        UPDATE users SET email = \(value(1)) WHERE id = \(value(2))
          AND NOT EXISTS (SELECT 1 FROM users WHERE environment_id = \(value(3)) AND email = \(value(1)))
        RETURNING 1
        """
    }

    static let setRole = SharedStatement { value in "UPDATE users SET role = \(value(1)) WHERE id = \(value(2))" }

    /// The time of the disabling, or `NULL`, then the id.
    static let setDisabled = SharedStatement { value in "UPDATE users SET disabled_at = \(value(1)) WHERE id = \(value(2))" }

    static let clearIdentity = SharedStatement { value in
        "UPDATE users SET idp_issuer = NULL, idp_subject = NULL WHERE id = \(value(1))"
    }
}
