public import FieldpassDomain
public import Foundation
import GRDB

extension SQLiteStore {
    public func teams(environmentID: String) async throws -> [TeamRecord] {
        try await read { db in
            try String.fetchAll(
                db.cachedStatement(sql: "SELECT id FROM teams WHERE environment_id = ? ORDER BY name"), arguments: [environmentID]
            )
            .compactMap { try Self.fetchTeam(db, id: $0, environmentID: environmentID) }
        }
    }

    public func team(id: String, environmentID: String) async throws -> TeamRecord? {
        try await read { db in try Self.fetchTeam(db, id: id, environmentID: environmentID) }
    }

    public func createTeam(name: String, by caller: DirectoryCaller, now: Date) async throws -> TeamRecord {
        try await write { db in
            let caller = try Self.authorize(db, caller)
            let (environmentID, actor) = (caller.environmentID, caller.actor)
            let id = UUID().uuidString.lowercased()
            let holder = try Self.teamID(db, named: name, environmentID: environmentID)
            try Self.apply(
                try TeamRules.create(id: id, name: name, holderOfName: holder, actor: actor), db, environmentID: environmentID, now: now)
            return try Self.requireTeam(db, id: id, environmentID: environmentID)
        }
    }

    public func renameTeam(id: String, to name: String, by caller: DirectoryCaller, now: Date) async throws -> TeamRecord {
        try await write { db in
            let caller = try Self.authorize(db, caller)
            try DirectoryAuthority.checkTeamChange(
                by: caller, scimManaged: try Self.isScimGroupTeam(db, teamID: id, environmentID: caller.environmentID))
            return try Self.renameTeam(db, id: id, to: name, environmentID: caller.environmentID, actor: caller.actor, now: now)
        }
    }

    static func renameTeam(
        _ db: Database, id: String, to name: String, environmentID: String, actor: String, now: Date
    ) throws -> TeamRecord {
        let team = try fetchTeam(db, id: id, environmentID: environmentID)
        let holder = try teamID(db, named: name, environmentID: environmentID)
        try apply(try TeamRules.rename(team, to: name, holderOfName: holder, actor: actor), db, environmentID: environmentID, now: now)
        return try requireTeam(db, id: id, environmentID: environmentID)
    }

    public func deleteTeam(id: String, by caller: DirectoryCaller, now: Date) async throws {
        try await write { db in
            let caller = try Self.authorize(db, caller)
            let environmentID = caller.environmentID
            try DirectoryAuthority.checkTeamChange(
                by: caller, scimManaged: try Self.isScimGroupTeam(db, teamID: id, environmentID: environmentID))
            let plan = try TeamRules.delete(try Self.fetchTeam(db, id: id, environmentID: environmentID), actor: caller.actor)
            try Self.apply(plan, db, environmentID: environmentID, now: now)
        }
    }

    public func changeMembership(
        userID: String, teamID: String, member: Bool, by caller: DirectoryCaller, managed: ClaimMappings, now: Date
    ) async throws -> TeamRecord {
        try await write { db in
            let caller = try Self.authorize(db, caller)
            let environmentID = caller.environmentID
            let userKnown = try Self.fetchUser(db, id: userID, environmentID: environmentID) != nil
            let team = try Self.fetchTeam(db, id: teamID, environmentID: environmentID)
            if let team, userKnown {
                try DirectoryAuthority.checkMembershipChange(
                    by: caller, of: team, scimManaged: try Self.isScimGroupTeam(db, teamID: teamID, environmentID: environmentID),
                    managed: managed)
            }
            let plan = try TeamRules.changeMembership(of: userID, userKnown: userKnown, in: team, member: member, actor: caller.actor)
            try Self.apply(plan, db, environmentID: environmentID, now: now)
            return try Self.requireTeam(db, id: teamID, environmentID: environmentID)
        }
    }

    /// The team a change just wrote, which its transaction still holds.
    private static func requireTeam(_ db: Database, id: String, environmentID: String) throws -> TeamRecord {
        guard let team = try fetchTeam(db, id: id, environmentID: environmentID) else { throw DirectoryError.unknownTeam }
        return team
    }

    static func fetchTeam(_ db: Database, id: String, environmentID: String) throws -> TeamRecord? {
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT id, name, created_at FROM teams WHERE id = ? AND environment_id = ?"),
                arguments: [id, environmentID]
            )
        else { return nil }
        let members = try String.fetchAll(
            db.cachedStatement(sql: "SELECT user_id FROM team_members WHERE team_id = ? ORDER BY user_id"), arguments: [id]
        )
        return TeamRecord(id: row["id"], name: row["name"], members: members, createdAt: Date(timeIntervalSince1970: row["created_at"]))
    }

    /// Whether the team is a SCIM group's, whose name, existence and members are the IdP's.
    static func isScimGroupTeam(_ db: Database, teamID: String, environmentID: String) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: ScimStatements.teamIsGroup.sqlite), arguments: [teamID, environmentID]) ?? false
    }

    static func teamID(_ db: Database, named name: String, environmentID: String) throws -> String? {
        try String.fetchOne(
            db.cachedStatement(sql: "SELECT id FROM teams WHERE environment_id = ? AND name = ?"), arguments: [environmentID, name])
    }
}
