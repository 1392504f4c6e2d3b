public import FieldpassDomain
public import Foundation
import PostgresNIO

extension PostgresStore {
    /// From memory when it can answer (see ``LiveRevocations``), else read as both stores read
    /// them; what is read is remembered unless a change came meanwhile.
    public func accessFacts(userID: String, environmentID: String) async throws -> AccessFacts? {
        let lookup = revocations?.accessFacts(userID: userID, environmentID: environmentID, now: .now)
        if case .known(let facts) = lookup { return facts }
        let facts = try await reading { transaction in try await transaction.accessFacts(userID: userID, environmentID: environmentID) }
        if case .unknown(let generation?) = lookup, let facts { revocations?.remember(facts, ifUnchangedSince: generation) }
        return facts
    }

    /// The id and role of the user with `email`, created with their personal realm when
    /// absent, and locked until the transaction ends. The realm enters the realm feed after
    /// commit (see ``PostgresFeed``); publish it then. One round trip for a newcomer, two for
    /// someone known. A creation is audited (by its first registration unless `actor` says
    /// otherwise).
    ///
    /// Race-safe: of two transactions creating the same email, the second waits on the unique
    /// key until the first commits, inserts nothing, and then finds and locks the committed
    /// row. Only the transaction that inserted the user creates the realm.
    static func findOrCreateUser(
        _ connection: PostgresConnection, email: String, environmentID: String, now: Double, actor: String = "device"
    ) async throws -> (id: String, role: String, created: Bool) {
        let person = DirectoryRules.newPerson(email: email, actor: actor)
        let creation: PostgresQuery = "\(creating: person, in: environmentID, at: now)"
        // The audit of the creation is written by the same statement, for the created row only.
        let statement = try auditing(
            person.audit, environmentID: environmentID,
            now: Date(timeIntervalSince1970: now), following: (creation, eachRowOf: "created"), then: "SELECT id, role FROM created"
        )
        var row = try await connection.first(statement.query)
        let created = row != nil
        if !created {
            row = try await lockedUser(email: email, environmentID: environmentID, on: connection)
        } else if statement.storesEvents {
            LifecycleWrites.current?.wrote()
        }
        guard let row else { throw DirectoryError.unknownUser }
        return (try row.get("id"), try row.get("role"), created)
    }

    /// The id and role of the user with `email`, locked until the transaction ends.
    static func lockedUser(email: String, environmentID: String, on connection: PostgresConnection) async throws -> PostgresRandomAccessRow?
    {
        try await connection.first("SELECT id, role FROM users WHERE environment_id = \(environmentID) AND email = \(email) FOR UPDATE")
    }
}
