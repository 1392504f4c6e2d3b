import FieldpassDomain
import Foundation

/// How both stores keep SCIM's attributes in columns, and the conditions of its filters.
enum ScimColumns {
    static func name(_ profile: ScimProfile) throws -> String? {
        profile.name.isEmpty ? nil : try StableJSON.text(profile.name)
    }

    static func emails(_ profile: ScimProfile) throws -> String? {
        profile.emails.isEmpty ? nil : try StableJSON.text(profile.emails)
    }

    static func profile(externalID: String?, displayName: String?, name: String?, emails: String?) throws -> ScimProfile {
        let decoder = JSONDecoder()
        return ScimProfile(
            externalID: externalID, displayName: displayName,
            name: try name.map { try decoder.decode([String: String].self, from: Data($0.utf8)) } ?? [:],
            emails: try emails.map { try decoder.decode([ScimEmail].self, from: Data($0.utf8)) } ?? []
        )
    }

    /// The column a user filter compares (`u` users, `s` scim_users), and the value as stored.
    static func userCondition(_ filter: (attribute: String, value: String)) -> (column: String, value: String) {
        switch filter.attribute {
        case "userName": ("u.email", filter.value.lowercased())
        case "externalId": ("s.external_id", filter.value)
        default: ("u.id", filter.value)
        }
    }

    /// The expression a group filter compares (`g` scim_groups, `t` teams), and the value.
    static func groupCondition(_ filter: (attribute: String, value: String)) -> (column: String, value: String) {
        switch filter.attribute {
        case "displayName": ("lower(COALESCE(t.name, g.display_name))", filter.value.lowercased())
        case "externalId": ("g.external_id", filter.value)
        default: ("g.id", filter.value)
        }
    }

    /// The columns of a SCIM user read: the user's and their SCIM attributes.
    static let userColumns = """
        u.id, u.environment_id, u.email, u.role, u.created_at, u.idp_issuer, u.idp_subject, u.disabled_at,
        s.external_id, s.display_name, s.name, s.emails, s.updated_at
        """

    /// People SCIM lists: all but those it removed.
    static let listedUsers = "FROM users u LEFT JOIN scim_users s ON s.user_id = u.id WHERE u.environment_id = "

    static let groupColumns = """
        g.id, g.team_id, COALESCE(t.name, g.display_name) AS display_name, g.external_id, g.created_at, g.updated_at
        """

    static let groups = "FROM scim_groups g LEFT JOIN teams t ON t.id = g.team_id WHERE g.environment_id = "

    /// A group's members, in id order, as one list (``SQLDialect/list(_:)``): its team's, or a
    /// role group's own; people SCIM removed are left out.
    static let members = SharedStatement(dialects: { sql in
        let members = """
            SELECT user_id AS item FROM (
                SELECT m.user_id FROM team_members m JOIN scim_groups g ON g.team_id = m.team_id WHERE g.id = \(sql.value(1))
                UNION SELECT r.user_id FROM scim_group_members r WHERE r.group_id = \(sql.value(1))
            ) x WHERE NOT EXISTS (SELECT 1 FROM scim_users s WHERE s.user_id = x.user_id AND s.removed_at IS NOT NULL)
            ORDER BY \(sql.bytewise("user_id"))
            """
        return "SELECT \(sql.list(members))"
    })
}
