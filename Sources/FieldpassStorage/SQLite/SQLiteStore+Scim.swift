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
            let known = try Self.userID(db, email: email, environmentID: environmentID)
            let listed = try known.map { try Self.fetchScimUser(db, id: $0, environmentID: environmentID) != nil } ?? false
            let id = try Self.findOrCreateUser(db, email: email, environmentID: environmentID, now: now.timeIntervalSince1970, actor: actor)
            guard let user = try Self.fetchUser(db, id: id, environmentID: environmentID) else { throw DirectoryError.unknownUser }
            let plan = try ScimUserPlans.provision(
                user, created: known == nil, listed: listed, profile: profile, active: active,
                liveDevices: try Self.liveDeviceIDs(db, userID: id), actor: actor
            )
            try Self.apply(plan, db, environmentID: environmentID, now: now)
            return try Self.requireScimUser(db, id: id, environmentID: environmentID)
        }
    }

    public func updateScimUser(
        id: String, environmentID: String, actor: String, now: Date,
        change: @escaping @Sendable (ScimUserRecord) throws -> ScimUserResource
    ) async throws -> ScimUserRecord {
        // The write transaction is exclusive: the person read here is the one the change writes over.
        try await write { db in
            let old = try Self.requireScimUser(db, id: id, environmentID: environmentID)
            let new = try change(old)
            let holder = try Self.userID(db, email: new.userName, environmentID: environmentID)
            let plan = try ScimUserPlans.update(
                old, email: new.userName, holderOfEmail: holder, profile: new.profile, active: new.active,
                liveDevices: try Self.liveDeviceIDs(db, userID: id), actor: actor
            )
            try Self.apply(plan, db, environmentID: environmentID, now: now)
            return try Self.requireScimUser(db, id: id, environmentID: environmentID)
        }
    }

    public func removeScimUser(id: String, environmentID: String, actor: String, now: Date) async throws {
        try await write { db in
            let old = try Self.requireScimUser(db, id: id, environmentID: environmentID)
            let plan = try ScimUserPlans.remove(old, liveDevices: try Self.liveDeviceIDs(db, userID: id), actor: actor)
            try Self.apply(plan, db, environmentID: environmentID, now: now)
        }
    }

    private static func requireScimUser(_ db: Database, id: String, environmentID: String) throws -> ScimUserRecord {
        guard let record = try fetchScimUser(db, id: id, environmentID: environmentID) else { throw DirectoryError.unknownUser }
        return record
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
        kind: ScimGroupKind, displayName: String, externalID: String?, members: [String], roles: RoleClaimMapping?,
        environmentID: String, actor: String, now: Date
    ) async throws -> ScimGroupRecord {
        try await write { db in
            let nameTaken =
                try Bool.fetchOne(db.cachedStatement(sql: ScimStatements.groupNameTaken.sqlite), arguments: [environmentID, displayName])
                ?? false
            let team =
                try kind == .team
                ? Self.teamID(db, named: displayName, environmentID: environmentID).flatMap {
                    try Self.fetchTeam(db, id: $0, environmentID: environmentID)
                } : nil
            let id = UUID().uuidString.lowercased()
            let plan = try ScimGroupPlans.create(
                id: id, kind: kind, displayName: displayName, externalID: externalID, nameTaken: nameTaken, team: team, actor: actor)
            try Self.apply(plan, db, environmentID: environmentID, now: now)
            let group = try Self.requireScimGroup(db, id: team?.id ?? id, environmentID: environmentID)
            let resource = ScimGroupResource(displayName: group.displayName, externalID: externalID, members: members)
            return try Self.save(group, as: resource, roles: roles, environmentID: environmentID, actor: actor, now: now, db)
        }
    }

    public func updateScimGroup(
        id: String, roles: RoleClaimMapping?, environmentID: String, actor: String, now: Date,
        change: @escaping @Sendable (ScimGroupRecord) throws -> ScimGroupResource
    ) async throws -> ScimGroupRecord {
        // The write transaction is exclusive: the group read here is the one the change writes over.
        try await write { db in
            let group = try Self.requireScimGroup(db, id: id, environmentID: environmentID)
            return try Self.save(group, as: try change(group), roles: roles, environmentID: environmentID, actor: actor, now: now, db)
        }
    }

    public func deleteScimGroup(id: String, roles: RoleClaimMapping?, environmentID: String, actor: String, now: Date) async throws {
        try await write { db in
            let group = try Self.requireScimGroup(db, id: id, environmentID: environmentID)
            let facts = try Self.facts(of: group, as: ScimGroupPlans.emptied(group), environmentID: environmentID, db)
            try Self.apply(
                try ScimGroupPlans.deleteRoleGroup(group, facts: facts, roles: roles, actor: actor), db, environmentID: environmentID,
                now: now)
        }
    }

    /// Makes the stored `group` what `resource` says (``ScimGroupPlans/save(_:as:facts:roles:actor:)``).
    private static func save(
        _ group: ScimGroupRecord, as resource: ScimGroupResource, roles: RoleClaimMapping?, environmentID: String, actor: String, now: Date,
        _ db: Database
    ) throws -> ScimGroupRecord {
        let facts = try facts(of: group, as: resource, environmentID: environmentID, db)
        try apply(
            try ScimGroupPlans.save(group, as: resource, facts: facts, roles: roles, actor: actor), db, environmentID: environmentID,
            now: now)
        return try requireScimGroup(db, id: group.id, environmentID: environmentID)
    }

    /// What the rule of a change of `group` to `resource` reads.
    private static func facts(
        of group: ScimGroupRecord, as resource: ScimGroupResource, environmentID: String, _ db: Database
    ) throws
        -> ScimGroupFacts
    {
        let team = try group.teamID.flatMap { try fetchTeam(db, id: $0, environmentID: environmentID) }
        let holder =
            try team != nil && resource.displayName != group.displayName
            ? teamID(db, named: resource.displayName, environmentID: environmentID) : nil
        var people: [String: UserRecord] = [:]
        var keys: [String: [String]] = [:]
        for userID in ScimGroupPlans.peopleToRead(group, as: resource) {
            guard let person = try fetchUser(db, id: userID, environmentID: environmentID) else { continue }
            people[userID] = person
            if group.teamID == nil { keys[userID] = try roleGroupKeys(db, userID: userID, except: group.id, environmentID: environmentID) }
        }
        let listed = try listedPeople(db, among: ScimGroupPlans.joining(group, as: resource), environmentID: environmentID)
        return ScimGroupFacts(team: team, holderOfName: holder, people: people, otherRoleGroupKeys: keys, listed: listed)
    }

    /// Who of `ids` SCIM lists in the environment: one statement, however many they are.
    private static func listedPeople(_ db: Database, among ids: [String], environmentID: String) throws -> Set<String> {
        guard !ids.isEmpty else { return [] }
        return Set(
            try String.fetchAll(
                db.cachedStatement(
                    sql: "SELECT u.id \(ScimColumns.listedUsers)? AND s.removed_at IS NULL AND u.id IN (SELECT value FROM json_each(?))"),
                arguments: [environmentID, String(decoding: try JSONEncoder().encode(ids), as: UTF8.self)]
            ))
    }

    private static func requireScimGroup(_ db: Database, id: String, environmentID: String) throws -> ScimGroupRecord {
        guard let group = try fetchScimGroup(db, id: id, environmentID: environmentID) else { throw DirectoryError.unknownTeam }
        return group
    }

    /// The names and external ids of the person's role groups but `groupID`.
    static func roleGroupKeys(_ db: Database, userID: String, except groupID: String, environmentID: String) throws -> [String] {
        let rows = try Row.fetchAll(
            db.cachedStatement(sql: ScimStatements.roleGroupKeys.sqlite), arguments: [userID, environmentID, groupID])
        return rows.flatMap { row in [row["display_name"] as String?, row["external_id"] as String?].compactMap { $0 } }
    }

    public func isScimManaged(userID: String?, teamID: String?, environmentID: String) async throws -> Bool {
        try await read { db in
            let user = try userID.map { try Self.isProvisioned(db, userID: $0, environmentID: environmentID) } ?? false
            let team = try teamID.map { try Self.isScimGroupTeam(db, teamID: $0, environmentID: environmentID) } ?? false
            return user || team
        }
    }

    /// Whether SCIM provisioned the person (``ScimStatements/provisioned``).
    static func isProvisioned(_ db: Database, userID: String, environmentID: String) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: ScimStatements.provisioned.sqlite), arguments: [userID, environmentID]) ?? false
    }

    static func saveProfile(_ db: Database, userID: String, profile: ScimProfile, now: Date) throws {
        try db.execute(
            cached: ScimStatements.saveProfile.sqlite,
            arguments: [
                userID, profile.externalID, profile.displayName, try ScimColumns.name(profile), try ScimColumns.emails(profile),
                now.timeIntervalSince1970,
            ]
        )
    }

    static func fetchScimUser(_ db: Database, id: String, environmentID: String) throws -> ScimUserRecord? {
        try Row.fetchOne(
            db.cachedStatement(sql: ScimStatements.user.sqlite), arguments: [environmentID, id]
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
            db.cachedStatement(sql: ScimStatements.group.sqlite), arguments: [environmentID, id]
        ).map { try scimGroupRecord(db, $0) }
    }

    static func scimGroupRecord(_ db: Database, _ row: Row) throws -> ScimGroupRecord {
        let id: String = row["id"]
        return ScimGroupRecord(
            id: id, teamID: row["team_id"], displayName: row["display_name"], externalID: row["external_id"],
            members: try String.fetchAll(db.cachedStatement(sql: ScimColumns.members.sqlite), arguments: [id]),
            createdAt: Date(timeIntervalSince1970: row["created_at"]), updatedAt: Date(timeIntervalSince1970: row["updated_at"])
        )
    }
}
