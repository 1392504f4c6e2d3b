import FieldpassDomain

/// The names an audit page reads with its entries (``NamedAuditEntry``), as columns over the
/// page's rows `p` (which carry `environment_id`): each is a lookup by primary key of what an
/// id stands for, in the entry's own environment, `NULL` where the entry holds no such id or
/// its thing is gone. Written once for both stores; the JSON fields are read by
/// ``SQLDialect/jsonText(_:key:)``.
enum AuditNameColumns {
    /// The column of a named field's name: `name_of_<field>`.
    static func column(_ field: String) -> String { "name_of_\(field)" }

    static func sql(_ dialect: SQLDialect) -> String {
        var columns = [
            "\(whoActed("p.actor")) AS actor_name",
            """
            COALESCE(\(person(id(after: "user:", in: "p.target"))), \(team(id(after: "team:", in: "p.target"))),
                     \(sharedDevice(id(after: "shared_device:", in: "p.target"))),
                     \(roleGroup(id(after: "role_group:", in: "p.target")))) AS target_name
            """,
        ]
        for (field, kind) in NamedAuditEntry.namedFields.sorted(by: { $0.key < $1.key }) {
            let id = "COALESCE(\(dialect.jsonText("p.after", key: field)), \(dialect.jsonText("p.before", key: field)))"
            columns.append("\(name(of: kind, id)) AS \(column(field))")
        }
        return columns.joined(separator: ",\n")
    }

    private static func name(of kind: NamedAuditEntry.NamedKind, _ id: String) -> String {
        switch kind {
        case .person: person(id)
        case .team: team(id)
        case .sharedDevice: sharedDevice(id)
        case .device:
            "(SELECT d.name FROM devices d JOIN users o ON o.id = d.user_id WHERE d.id = \(id) AND o.environment_id = p.environment_id)"
        case .actor: whoActed(id)
        }
    }

    /// A person who acted (`user:<id>` or `console:<id>`) by email, or a shared device by name.
    private static func whoActed(_ actor: String) -> String {
        """
        COALESCE(\(person(id(after: "user:", in: actor))), \(person(id(after: "console:", in: actor))),
                 \(sharedDevice(id(after: "shared_device:", in: actor))))
        """
    }

    private static func person(_ id: String) -> String {
        "(SELECT u.email FROM users u WHERE u.id = \(id) AND u.environment_id = p.environment_id)"
    }

    private static func team(_ id: String) -> String {
        "(SELECT t.name FROM teams t WHERE t.id = \(id) AND t.environment_id = p.environment_id)"
    }

    private static func sharedDevice(_ id: String) -> String {
        "(SELECT s.name FROM shared_devices s WHERE s.id = \(id) AND s.environment_id = p.environment_id)"
    }

    private static func roleGroup(_ id: String) -> String {
        "(SELECT g.display_name FROM scim_groups g WHERE g.id = \(id) AND g.environment_id = p.environment_id)"
    }

    /// The id in `expression` (an actor or a target) after `prefix`, or `NULL` if it has another.
    private static func id(after prefix: String, in expression: String) -> String {
        "CASE WHEN substr(\(expression), 1, \(prefix.count)) = '\(prefix)' THEN substr(\(expression), \(prefix.count + 1)) END"
    }
}
