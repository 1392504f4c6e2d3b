import FieldpassDomain

/// The statements of a ``RoleRecompute``, the same on both stores but for their placeholders
/// (`bind` takes each value in the order of the text and answers its placeholder, as in
/// ``ConsoleTables``) and the lifecycle feed's columns. They read `role_changes (id, old_role,
/// new_role)`, each member of the group whose role the rule changes (``changes``): SQLite makes
/// it a temporary table, computed once for its three statements, PostgreSQL the first entry of
/// its one statement's `WITH` list. ``records`` lists the audit entry and lifecycle event bodies
/// of each change of role, naming the member as ``RoleRecompute/person``.
///
/// The audit entries and events are written before the roles (SQLite) or from the same
/// snapshot (PostgreSQL), since they say what each role was.
enum RoleRecomputeSQL {
    /// The query of `role_changes`: the rule's tiers, each the role groups its keys name, as
    /// one `CASE` in which the first tier holding one of a member's role groups wins, else the
    /// default, else the role they have. The group's members are read as the store lists them:
    /// people SCIM removed are left out.
    static func changes(_ recompute: RoleRecompute, environmentID: String, bind: (String) -> String) -> String {
        let tiers = recompute.tiers.enumerated().map { number, tier in
            let environment = bind(environmentID)
            let names = tier.values.map(bind).joined(separator: ", ")
            let externalIDs = tier.values.map(bind).joined(separator: ", ")
            return """
                tier_\(number) AS (
                    SELECT id FROM scim_groups WHERE environment_id = \(environment) AND team_id IS NULL
                      AND (display_name IN (\(names)) OR external_id IN (\(externalIDs)))
                )
                """
        }
        let cases = recompute.tiers.indices.map { number in
            """
             WHEN EXISTS (SELECT 1 FROM scim_group_members o WHERE o.user_id = u.id AND o.group_id IN (SELECT id FROM tier_\(number))) \
            THEN \(bind(recompute.tiers[number].role.rawValue))
            """
        }
        let otherwise = recompute.otherwise.map { bind($0.rawValue) } ?? "u.role"
        let role = cases.isEmpty ? otherwise : "CASE\(cases.joined()) ELSE \(otherwise) END"
        return """
            \(tiers.isEmpty ? "" : "WITH \(tiers.joined(separator: ",\n"))\n")SELECT id, old_role, new_role FROM (
                SELECT u.id, u.role AS old_role, \(role) AS new_role FROM users u
                WHERE u.id IN (SELECT m.user_id FROM scim_group_members m WHERE m.group_id = \(bind(recompute.groupID)))
                  AND NOT EXISTS (SELECT 1 FROM scim_users s WHERE s.user_id = u.id AND s.removed_at IS NOT NULL)
            ) AS candidate WHERE old_role <> new_role
            """
    }

    /// `entries (old_role, new_role, actor, action, target, before, after)` and, when a change's
    /// entry stands for lifecycle events, `events (old_role, new_role, body)`: entries of a
    /// `WITH` list, without `WITH`.
    static func records(_ recompute: RoleRecompute, bind: (String) -> String) throws -> (sql: String, hasEvents: Bool) {
        // Each row's values are bound in the order they stand in the text: SQLite's `?` are positional.
        let entries = try recompute.changes.map { change in
            let (from, to) = (bind(change.from.rawValue), bind(change.to.rawValue))
            let (actor, action, target) = (bind(change.entry.actor), bind(change.entry.action), bind(change.entry.target))
            let before = try change.entry.before.map(StableJSON.text).map(bind) ?? "NULL"
            let after = try change.entry.after.map(StableJSON.text).map(bind) ?? "NULL"
            return "(\(from), \(to), \(actor), \(action), \(target), \(before), \(after))"
        }
        let events = try recompute.changes.flatMap { change in
            try LifecycleEventRules.events(for: change.entry).map(StableJSON.text).map { body in
                "(\(bind(change.from.rawValue)), \(bind(change.to.rawValue)), \(bind(body)))"
            }
        }
        var list = ["entries (old_role, new_role, actor, action, target, before, after) AS (VALUES \(entries.joined(separator: ", ")))"]
        if !events.isEmpty { list.append("events (old_role, new_role, body) AS (VALUES \(events.joined(separator: ", ")))") }
        return (list.joined(separator: ",\n"), !events.isEmpty)
    }

    /// The audit entry of each change, in member id order.
    static func insertEntries(environment: String, at: String) -> String {
        """
        INSERT INTO audit_log (environment_id, actor, action, target, before, after, at)
        SELECT \(environment), e.actor, e.action, replace(e.target, '\(RoleRecompute.person)', c.id), e.before, e.after, \(at)
        FROM role_changes c JOIN entries e ON e.old_role = c.old_role AND e.new_role = c.new_role ORDER BY c.id
        """
    }

    /// The lifecycle events of each change, in member id order; `unplaced` adds the columns
    /// and values of PostgreSQL's feed placement.
    static func insertEvents(environment: String, at: String, unplaced: (columns: String, values: String)? = nil) -> String {
        """
        INSERT INTO lifecycle_events (environment_id, body, at\(unplaced.map { ", \($0.columns)" } ?? ""))
        SELECT \(environment), replace(v.body, '\(RoleRecompute.person)', c.id), \(at)\(unplaced.map { ", \($0.values)" } ?? "")
        FROM role_changes c JOIN events v ON v.old_role = c.old_role AND v.new_role = c.new_role ORDER BY c.id
        """
    }

    /// The roles themselves.
    static let update = "UPDATE users AS u SET role = c.new_role FROM role_changes AS c WHERE u.id = c.id"
}
