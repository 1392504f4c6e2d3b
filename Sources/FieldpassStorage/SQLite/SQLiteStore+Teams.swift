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

    public func createTeam(name: String, environmentID: String, actor: String, now: Date) async throws -> TeamRecord {
        try await write { db in
            guard try Self.teamID(db, named: name, environmentID: environmentID) == nil else { throw DirectoryError.teamNameTaken }
            let id = UUID().uuidString.lowercased()
            try db.execute(
                cached: "INSERT INTO teams (id, environment_id, name, created_at) VALUES (?, ?, ?, ?)",
                arguments: [id, environmentID, name, now.timeIntervalSince1970]
            )
            try Self.audit(db, environmentID: environmentID, .teamCreated(actor: actor, teamID: id, name: name), now: now)
            return try Self.requireTeam(db, id: id, environmentID: environmentID)
        }
    }

    public func renameTeam(id: String, to name: String, environmentID: String, actor: String, now: Date) async throws -> TeamRecord {
        try await write { db in try Self.renameTeam(db, id: id, to: name, environmentID: environmentID, actor: actor, now: now) }
    }

    static func renameTeam(
        _ db: Database, id: String, to name: String, environmentID: String, actor: String, now: Date
    ) throws -> TeamRecord {
        let team = try requireTeam(db, id: id, environmentID: environmentID)
        guard team.name != name else { return team }
        guard try teamID(db, named: name, environmentID: environmentID) == nil else { throw DirectoryError.teamNameTaken }
        try db.execute(cached: "UPDATE teams SET name = ? WHERE id = ?", arguments: [name, id])
        try audit(db, environmentID: environmentID, .teamRenamed(actor: actor, teamID: id, from: team.name, to: name), now: now)
        return try requireTeam(db, id: id, environmentID: environmentID)
    }

    public func deleteTeam(id: String, environmentID: String, actor: String, now: Date) async throws {
        try await write { db in
            let team = try Self.requireTeam(db, id: id, environmentID: environmentID)
            try db.execute(cached: "DELETE FROM teams WHERE id = ?", arguments: [id])
            try Self.audit(db, environmentID: environmentID, .teamDeleted(actor: actor, team: team), now: now)
        }
    }

    public func changeMembership(
        userID: String, teamID: String, environmentID: String, actor: String, now: Date, member: Bool
    ) async throws -> TeamRecord {
        try await write { db in
            try Self.changeMembership(
                db, userID: userID, teamID: teamID, environmentID: environmentID, actor: actor, now: now, member: member)
        }
    }

    static func changeMembership(
        _ db: Database, userID: String, teamID: String, environmentID: String, actor: String, now: Date, member: Bool
    ) throws -> TeamRecord {
        let team = try requireTeam(db, id: teamID, environmentID: environmentID)
        guard try fetchUser(db, id: userID, environmentID: environmentID) != nil else { throw DirectoryError.unknownUser }
        guard team.members.contains(userID) != member else { return team }
        if member {
            try db.execute(
                cached: "INSERT INTO team_members (team_id, user_id, added_at) VALUES (?, ?, ?)",
                arguments: [teamID, userID, now.timeIntervalSince1970]
            )
        } else {
            try db.execute(cached: "DELETE FROM team_members WHERE team_id = ? AND user_id = ?", arguments: [teamID, userID])
        }
        try audit(db, environmentID: environmentID, .teamMembership(actor: actor, teamID: teamID, userID: userID, member: member), now: now)
        return try requireTeam(db, id: teamID, environmentID: environmentID)
    }

    static func requireTeam(_ db: Database, id: String, environmentID: String) throws -> TeamRecord {
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

    private static func teamID(_ db: Database, named name: String, environmentID: String) throws -> String? {
        try String.fetchOne(
            db.cachedStatement(sql: "SELECT id FROM teams WHERE environment_id = ? AND name = ?"), arguments: [environmentID, name])
    }
}
