public import FieldpassDomain
public import Foundation
import GRDB

extension SQLiteStore: ScimStore {
    public func scimUsers(
        environmentID: String, filter: (attribute: String, value: String)?, offset: Int, limit: Int
    ) async throws -> ScimPage<ScimUserRecord> {
        let condition = filter.map(ScimColumns.userCondition)
        return try await read { db in
            let sql = ScimColumns.listedUsers + "? AND s.removed_at IS NULL" + (condition.map { " AND \($0.column) = ?" } ?? "")
            let arguments = StatementArguments([environmentID] + (condition.map { [$0.value] } ?? []))
            let total = try Int.fetchOne(db, sql: "SELECT COUNT(*) " + sql, arguments: arguments) ?? 0
            let rows = try Row.fetchAll(
                db, sql: "SELECT \(ScimColumns.userColumns) \(sql) ORDER BY u.created_at, u.id LIMIT ? OFFSET ?",
                arguments: arguments + [limit, offset]
            )
            return ScimPage(total: total, items: try rows.map(Self.scimUserRecord))
        }
    }

    public func scimUser(id: String, environmentID: String) async throws -> ScimUserRecord? {
        try await read { db in try Self.fetchScimUser(db, id: id, environmentID: environmentID) }
    }

    public func provisionScimUser(
        email: String, profile: ScimProfile, active: Bool, environmentID: String, actor: String, now: Date
    ) async throws -> ScimUserRecord {
        defer { realmFeed.signal() }
        return try await write { db in
            let known = try String.fetchOne(
                db.cachedStatement(sql: "SELECT id FROM users WHERE environment_id = ? AND email = ?"), arguments: [environmentID, email]
            )
            if let known, try Self.fetchScimUser(db, id: known, environmentID: environmentID) != nil {
                throw ScimError.uniqueness("A user with this userName exists already.")
            }
            let id = try Self.findOrCreateUser(db, email: email, environmentID: environmentID, now: now.timeIntervalSince1970, actor: actor)
            try Self.saveProfile(db, userID: id, profile: profile, now: now)
            if let entry = AuditRecord.scimUserProvisioned(actor: actor, userID: id, email: email, profile: profile, newcomer: known == nil)
            {
                try Self.audit(db, environmentID: environmentID, entry, now: now)
            }
            // A person taken back after a DELETE is disabled until the IdP says they are active.
            _ = try Self.setDisabled(db, !active, userID: id, environmentID: environmentID, actor: actor, now: now)
            guard let record = try Self.fetchScimUser(db, id: id, environmentID: environmentID) else { throw DirectoryError.unknownUser }
            return record
        }
    }

    public func updateScimUser(
        id: String, email: String, profile: ScimProfile, active: Bool?, environmentID: String, actor: String, now: Date
    ) async throws -> ScimUserRecord {
        try await write { db in
            guard let old = try Self.fetchScimUser(db, id: id, environmentID: environmentID) else { throw DirectoryError.unknownUser }
            if let entry = AuditRecord.scimUserUpdated(actor: actor, userID: id, from: (old.user.email, old.profile), to: (email, profile))
            {
                if email != old.user.email {
                    guard
                        try String.fetchOne(
                            db.cachedStatement(sql: "SELECT id FROM users WHERE environment_id = ? AND email = ?"),
                            arguments: [environmentID, email]
                        ) == nil
                    else { throw ScimError.uniqueness("Another user has this userName.") }
                    try db.execute(cached: "UPDATE users SET email = ? WHERE id = ?", arguments: [email, id])
                }
                try Self.saveProfile(db, userID: id, profile: profile, now: now)
                try Self.audit(db, environmentID: environmentID, entry, now: now)
            }
            if let active { _ = try Self.setDisabled(db, !active, userID: id, environmentID: environmentID, actor: actor, now: now) }
            guard let record = try Self.fetchScimUser(db, id: id, environmentID: environmentID) else { throw DirectoryError.unknownUser }
            return record
        }
    }

    public func removeScimUser(id: String, environmentID: String, actor: String, now: Date) async throws {
        try await write { db in
            guard let old = try Self.fetchScimUser(db, id: id, environmentID: environmentID) else { throw DirectoryError.unknownUser }
            try Self.saveProfile(db, userID: id, profile: old.profile, now: now)
            try db.execute(cached: "UPDATE scim_users SET removed_at = ? WHERE user_id = ?", arguments: [now.timeIntervalSince1970, id])
            try Self.audit(db, environmentID: environmentID, .userDeleted(actor: actor, userID: id, email: old.user.email), now: now)
            _ = try Self.setDisabled(db, true, userID: id, environmentID: environmentID, actor: actor, now: now)
        }
    }

    public func scimGroups(
        environmentID: String, filter: (attribute: String, value: String)?, offset: Int, limit: Int
    ) async throws -> ScimPage<ScimGroupRecord> {
        let condition = filter.map(ScimColumns.groupCondition)
        return try await read { db in
            let sql = ScimColumns.groups + "?" + (condition.map { " AND \($0.column) = ?" } ?? "")
            let arguments = StatementArguments([environmentID] + (condition.map { [$0.value] } ?? []))
            let total = try Int.fetchOne(db, sql: "SELECT COUNT(*) " + sql, arguments: arguments) ?? 0
            let rows = try Row.fetchAll(
                db, sql: "SELECT \(ScimColumns.groupColumns) \(sql) ORDER BY g.created_at, g.id LIMIT ? OFFSET ?",
                arguments: arguments + [limit, offset]
            )
            return ScimPage(total: total, items: try rows.map { try Self.scimGroupRecord(db, $0) })
        }
    }

    public func scimGroup(id: String, environmentID: String) async throws -> ScimGroupRecord? {
        try await read { db in try Self.fetchScimGroup(db, id: id, environmentID: environmentID) }
    }

    public func createScimGroup(
        teamID: String?, displayName: String, externalID: String?, members: [String], roles: @escaping RoleOfGroups,
        environmentID: String, actor: String, now: Date
    ) async throws -> ScimGroupRecord {
        try await write { db in
            let id = teamID ?? UUID().uuidString.lowercased()
            let timestamp = now.timeIntervalSince1970
            try db.execute(
                cached: """
                    INSERT INTO scim_groups (id, environment_id, team_id, display_name, external_id, created_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [id, environmentID, teamID, displayName, externalID, timestamp, timestamp]
            )
            if teamID == nil {
                try Self.audit(db, environmentID: environmentID, .roleGroupCreated(actor: actor, groupID: id, name: displayName), now: now)
            }
            guard let group = try Self.fetchScimGroup(db, id: id, environmentID: environmentID) else { throw DirectoryError.unknownTeam }
            return try Self.apply(
                ScimGroupResource(displayName: displayName, externalID: externalID, members: members), to: group, roles: roles,
                environmentID: environmentID, actor: actor, now: now, db
            )
        }
    }

    public func saveScimGroup(
        id: String, displayName: String, externalID: String?, members: [String], roles: @escaping RoleOfGroups,
        environmentID: String, actor: String, now: Date
    ) async throws -> ScimGroupRecord {
        try await write { db in
            guard let group = try Self.fetchScimGroup(db, id: id, environmentID: environmentID) else { throw DirectoryError.unknownTeam }
            return try Self.apply(
                ScimGroupResource(displayName: displayName, externalID: externalID, members: members), to: group, roles: roles,
                environmentID: environmentID, actor: actor, now: now, db
            )
        }
    }

    public func deleteScimGroup(id: String, roles: @escaping RoleOfGroups, environmentID: String, actor: String, now: Date) async throws {
        try await write { db in
            guard let group = try Self.fetchScimGroup(db, id: id, environmentID: environmentID) else { throw DirectoryError.unknownTeam }
            if group.teamID == nil {
                let emptied = ScimGroupResource(displayName: group.displayName, externalID: group.externalID, members: [])
                _ = try Self.apply(emptied, to: group, roles: roles, environmentID: environmentID, actor: actor, now: now, db)
            }
            try db.execute(cached: "DELETE FROM scim_groups WHERE id = ?", arguments: [id])
            if group.teamID == nil {
                try Self.audit(
                    db, environmentID: environmentID, .roleGroupDeleted(actor: actor, groupID: id, name: group.displayName), now: now)
            }
        }
    }

    /// Makes the stored `group` what `resource` says (see ``saveScimGroup(id:displayName:externalID:members:roles:environmentID:actor:now:)``).
    private static func apply(
        _ resource: ScimGroupResource, to group: ScimGroupRecord, roles: RoleOfGroups, environmentID: String, actor: String, now: Date,
        _ db: Database
    ) throws -> ScimGroupRecord {
        let renamed = resource.displayName != group.displayName || resource.externalID != group.externalID
        if renamed {
            if let teamID = group.teamID, resource.displayName != group.displayName {
                _ = try renameTeam(db, id: teamID, to: resource.displayName, environmentID: environmentID, actor: actor, now: now)
            }
            try db.execute(
                cached: "UPDATE scim_groups SET display_name = ?, external_id = ?, updated_at = ? WHERE id = ?",
                arguments: [resource.displayName, resource.externalID, now.timeIntervalSince1970, group.id]
            )
        }
        let (added, removed) = ScimGroupRules.membershipChanges(current: group.members, wanted: resource.members)
        for (userID, member) in added.map({ ($0, true) }) + removed.map({ ($0, false) }) {
            if let teamID = group.teamID {
                _ = try changeMembership(
                    db, userID: userID, teamID: teamID, environmentID: environmentID, actor: actor, now: now, member: member)
            } else {
                try changeRoleGroupMembership(
                    db, groupID: group.id, userID: userID, member: member, environmentID: environmentID, actor: actor, now: now)
            }
        }
        if group.teamID == nil {
            for userID in ScimGroupRules.roleReview(current: group.members, added: added, removed: removed, renamed: renamed) {
                guard let role = roles(try roleGroupKeys(db, userID: userID, environmentID: environmentID)) else { continue }
                _ = try setRole(db, role, userID: userID, environmentID: environmentID, actor: actor, now: now)
            }
        }
        guard let saved = try fetchScimGroup(db, id: group.id, environmentID: environmentID) else { throw DirectoryError.unknownTeam }
        return saved
    }

    private static func changeRoleGroupMembership(
        _ db: Database, groupID: String, userID: String, member: Bool, environmentID: String, actor: String, now: Date
    ) throws {
        guard try fetchUser(db, id: userID, environmentID: environmentID) != nil else { throw DirectoryError.unknownUser }
        let changed = try Row.fetchAll(
            db,
            sql: member
                ? "INSERT INTO scim_group_members (group_id, user_id) VALUES (?, ?) ON CONFLICT DO NOTHING RETURNING 1"
                : "DELETE FROM scim_group_members WHERE group_id = ? AND user_id = ? RETURNING 1",
            arguments: [groupID, userID]
        )
        guard !changed.isEmpty else { return }
        try audit(
            db, environmentID: environmentID, .roleGroupMembership(actor: actor, groupID: groupID, userID: userID, member: member), now: now
        )
    }

    static func roleGroupKeys(_ db: Database, userID: String, environmentID: String) throws -> [String] {
        try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT g.display_name, g.external_id FROM scim_group_members m JOIN scim_groups g ON g.id = m.group_id
                    WHERE m.user_id = ? AND g.environment_id = ?
                    """),
            arguments: [userID, environmentID]
        ).flatMap { row in [row["display_name"] as String?, row["external_id"] as String?].compactMap { $0 } }
    }

    public func isScimManaged(userID: String?, teamID: String?, environmentID: String) async throws -> Bool {
        try await read { db in
            let user = try userID.map { try Self.isProvisioned(db, userID: $0, environmentID: environmentID) } ?? false
            let team =
                try teamID.map { id in
                    try Bool.fetchOne(
                        db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM scim_groups WHERE team_id = ? AND environment_id = ?)"),
                        arguments: [id, environmentID]
                    ) ?? false
                } ?? false
            return user || team
        }
    }

    /// Whether SCIM provisioned the person; one SCIM deleted still counts, since only the
    /// IdP may bring them back.
    static func isProvisioned(_ db: Database, userID: String, environmentID: String) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT EXISTS (SELECT 1 FROM scim_users s JOIN users u ON u.id = s.user_id
                                   WHERE s.user_id = ? AND u.environment_id = ?)
                    """),
            arguments: [userID, environmentID]
        ) ?? false
    }

    static func saveProfile(_ db: Database, userID: String, profile: ScimProfile, now: Date) throws {
        try db.execute(
            cached: """
                INSERT INTO scim_users (user_id, external_id, display_name, name, emails, removed_at, updated_at)
                VALUES (?, ?, ?, ?, ?, NULL, ?)
                ON CONFLICT (user_id) DO UPDATE SET external_id = excluded.external_id, display_name = excluded.display_name,
                    name = excluded.name, emails = excluded.emails, removed_at = NULL, updated_at = excluded.updated_at
                """,
            arguments: [
                userID, profile.externalID, profile.displayName, try ScimColumns.name(profile), try ScimColumns.emails(profile),
                now.timeIntervalSince1970,
            ]
        )
    }

    static func fetchScimUser(_ db: Database, id: String, environmentID: String) throws -> ScimUserRecord? {
        try Row.fetchOne(
            db.cachedStatement(sql: "SELECT \(ScimColumns.userColumns) \(ScimColumns.listedUsers)? AND s.removed_at IS NULL AND u.id = ?"),
            arguments: [environmentID, id]
        ).map(scimUserRecord)
    }

    static func scimUserRecord(_ row: Row) throws -> ScimUserRecord {
        ScimUserRecord(
            user: userRecord(row),
            profile: try ScimColumns.profile(
                externalID: row["external_id"], displayName: row["display_name"], name: row["name"], emails: row["emails"]
            ),
            updatedAt: (row["updated_at"] as Double?).map(Date.init(timeIntervalSince1970:))
        )
    }

    static func fetchScimGroup(_ db: Database, id: String, environmentID: String) throws -> ScimGroupRecord? {
        try Row.fetchOne(
            db.cachedStatement(sql: "SELECT \(ScimColumns.groupColumns) \(ScimColumns.groups)? AND g.id = ?"),
            arguments: [environmentID, id]
        ).map { try scimGroupRecord(db, $0) }
    }

    static func scimGroupRecord(_ db: Database, _ row: Row) throws -> ScimGroupRecord {
        let id: String = row["id"]
        return ScimGroupRecord(
            id: id, teamID: row["team_id"], displayName: row["display_name"], externalID: row["external_id"],
            members: try String.fetchAll(db.cachedStatement(sql: ScimColumns.members(groupID: "?1")), arguments: [id]),
            createdAt: Date(timeIntervalSince1970: row["created_at"]), updatedAt: Date(timeIntervalSince1970: row["updated_at"])
        )
    }
}
