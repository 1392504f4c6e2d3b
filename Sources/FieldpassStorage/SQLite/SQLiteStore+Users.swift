public import FieldpassDomain
public import Foundation
import GRDB

extension SQLiteStore {
    /// The id of the user with `email`, created with their personal realm when absent (by
    /// their first registration unless `actor` says otherwise); `created` says which.
    static func findOrCreateUser(
        _ db: Database, email: String, environmentID: String, now: Double, actor: String
    ) throws -> (id: String, created: Bool) {
        if let id = try userID(db, email: email, environmentID: environmentID) {
            return (id, false)
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
        return (person.id, true)
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
}
