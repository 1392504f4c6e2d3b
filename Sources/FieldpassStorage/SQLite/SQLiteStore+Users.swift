public import FieldpassDomain
public import Foundation
import GRDB

extension SQLiteStore {
    public func users(environmentID: String) async throws -> [UserRecord] {
        try await read { db in
            try Row.fetchAll(
                db.cachedStatement(sql: "SELECT * FROM users WHERE environment_id = ? ORDER BY email"), arguments: [environmentID]
            ).map(Self.userRecord)
        }
    }

    public func user(id: String, environmentID: String) async throws -> UserRecord? {
        try await read { db in try Self.fetchUser(db, id: id, environmentID: environmentID) }
    }

    public func ensureUser(email: String, environmentID: String, actor: String, now: Date) async throws -> UserRecord {
        // The realm feed may have a new realm.
        defer { realmFeed.signal() }
        return try await write { db in
            let id = try Self.findOrCreateUser(db, email: email, environmentID: environmentID, now: now.timeIntervalSince1970, actor: actor)
            guard let user = try Self.fetchUser(db, id: id, environmentID: environmentID) else { throw DirectoryError.unknownUser }
            return user
        }
    }

    public func setRole(
        _ role: Role, userID: String, by caller: DirectoryCaller, managed: ClaimMappings, now: Date
    ) async throws
        -> UserRecord
    {
        try await write { db in
            let caller = try Self.authorize(db, caller)
            return try Self.setRole(db, role, userID: userID, environmentID: caller.environmentID, actor: caller.actor, now: now) {
                try DirectoryAuthority.checkRoleChange(by: caller, managed: managed)
            }
        }
    }

    public func setRole(
        _ role: Role, email: String, by caller: DirectoryCaller, managed: ClaimMappings, now: Date
    ) async throws
        -> UserRecord
    {
        // The realm feed may have a new realm.
        defer { realmFeed.signal() }
        return try await write { db in
            let caller = try Self.authorize(db, caller)
            try DirectoryAuthority.checkRoleChange(by: caller, managed: managed)
            let environmentID = caller.environmentID
            let id = try Self.findOrCreateUser(
                db, email: email, environmentID: environmentID, now: now.timeIntervalSince1970, actor: caller.actor)
            return try Self.setRole(db, role, userID: id, environmentID: environmentID, actor: caller.actor, now: now)
        }
    }

    /// `check` runs when the person is known, on the record the rule then judges.
    static func setRole(
        _ db: Database, _ role: Role, userID: String, environmentID: String, actor: String, now: Date, check: () throws -> Void = {}
    ) throws -> UserRecord {
        let current = try fetchUser(db, id: userID, environmentID: environmentID)
        if current != nil { try check() }
        let plan = try DirectoryRules.setRole(role, of: current, actor: actor)
        try apply(plan, db, environmentID: environmentID, now: now)
        guard let user = try fetchUser(db, id: userID, environmentID: environmentID) else { throw DirectoryError.unknownUser }
        return user
    }

    public func accessFacts(userID: String, environmentID: String) async throws -> AccessFacts? {
        try await read { db in try Self.fetchFacts(db, userID: userID, environmentID: environmentID) }
    }

    /// The id of the user with `email`, created with their personal realm when absent (by
    /// their first registration unless `actor` says otherwise).
    static func findOrCreateUser(
        _ db: Database, email: String, environmentID: String, now: Double, actor: String = "device"
    ) throws -> String {
        if let id = try userID(db, email: email, environmentID: environmentID) {
            return id
        }
        let person = DirectoryRules.newPerson(email: email, actor: actor)
        try db.execute(
            cached: "INSERT INTO users (id, environment_id, email, role, created_at) VALUES (?, ?, ?, ?, ?)",
            arguments: [person.id, environmentID, person.email, person.role.rawValue, now]
        )
        try db.execute(
            cached: "INSERT INTO realms (path, environment_id, user_id, created_at, feed_seq) VALUES (?, ?, ?, ?, ?)",
            arguments: [person.realmPath, environmentID, person.id, now, try nextFeedSeq(db)]
        )
        try audit(db, environmentID: environmentID, person.audit, now: Date(timeIntervalSince1970: now))
        return person.id
    }

    /// The id of the person of the environment with this email, if any.
    static func userID(_ db: Database, email: String, environmentID: String) throws -> String? {
        try String.fetchOne(db.cachedStatement(sql: UserStatements.idByEmail.sqlite), arguments: [environmentID, email])
    }

    /// The next position in the realm feed: a counter, so positions are never reused.
    static func nextFeedSeq(_ db: Database) throws -> Int64 {
        guard
            let seq = try Int64.fetchOne(
                db.cachedStatement(sql: "UPDATE counters SET value = value + 1 WHERE name = 'realm_feed' RETURNING value")
            )
        else { throw DatabaseError(message: "realm feed counter missing") }
        return seq
    }

    static func fetchUser(_ db: Database, id: String, environmentID: String) throws -> UserRecord? {
        try Row.fetchOne(db.cachedStatement(sql: UserStatements.user.sqlite), arguments: [id, environmentID]).map(userRecord)
    }

    static func fetchFacts(_ db: Database, userID: String, environmentID: String) throws -> AccessFacts? {
        guard let user = try fetchUser(db, id: userID, environmentID: environmentID) else { return nil }
        let teams = try Row.fetchAll(
            db.cachedStatement(
                sql: "SELECT m.team_id, t.name FROM team_members m JOIN teams t ON t.id = m.team_id WHERE m.user_id = ? ORDER BY m.team_id"
            ),
            arguments: [userID]
        ).map { (id: $0["team_id"] as String, name: $0["name"] as String) }
        var grants: [String: RealmAccess] = [:]
        for row in try Row.fetchAll(
            db.cachedStatement(sql: "SELECT realm_path, access FROM realm_grants WHERE user_id = ?"), arguments: [userID])
        {
            if let access = RealmAccess(rawValue: row["access"]) { grants[row["realm_path"]] = access }
        }
        return AccessFacts(
            user: user, teams: teams.map(\.id), grants: grants,
            teamNames: Dictionary(teams.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        )
    }

    static func userRecord(_ row: Row) -> UserRecord {
        UserRecord(
            id: row["id"], environmentID: row["environment_id"], email: row["email"],
            role: Role(stored: row["role"]), createdAt: Date(timeIntervalSince1970: row["created_at"]),
            idpIssuer: row["idp_issuer"], idpSubject: row["idp_subject"], disabled: row["disabled_at"] as Double? != nil
        )
    }
}
