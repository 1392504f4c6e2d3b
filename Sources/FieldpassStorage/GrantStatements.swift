import FieldpassDomain

/// The statements on grants both stores share (``SharedStatement``).
enum GrantStatements {
    /// Gives or changes a grant: person, realm path, access, time.
    static let set = SharedStatement { value in
        """
        INSERT INTO realm_grants (user_id, realm_path, access, granted_at) VALUES (\(value(1)), \(value(2)), \(value(3)), \(value(4)))
        ON CONFLICT (user_id, realm_path) DO UPDATE SET access = excluded.access, granted_at = excluded.granted_at
        """
    }

    /// Person, realm path.
    static let remove = SharedStatement { value in
        "DELETE FROM realm_grants WHERE user_id = \(value(1)) AND realm_path = \(value(2))"
    }

    /// Whether the person or team a grant's path names is of the environment, and the id to
    /// bind first, the environment's second.
    static func ownerExists(_ owner: GrantRules.Owner) -> (statement: SharedStatement, id: String) {
        let (table, id) =
            switch owner {
            case .user(let id): ("users", id)
            case .team(let id): ("teams", id)
            }
        let statement = SharedStatement { value in
            "SELECT EXISTS (SELECT 1 FROM \(table) WHERE id = \(value(1)) AND environment_id = \(value(2)))"
        }
        return (statement, id)
    }
}
