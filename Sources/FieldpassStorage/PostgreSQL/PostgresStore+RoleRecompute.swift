import FieldpassDomain
import Foundation
import PostgresNIO

extension PostgresStore {
    /// Applies a ``RoleRecompute`` in one statement (``RoleRecomputeSQL``): the audit entries,
    /// the lifecycle events (unplaced, as every write stores them) and the roles, all from the
    /// snapshot the statement starts with, and tells every instance of each person whose role
    /// changed. Callers hold the locks of the group's members.
    static func recomputeRoles(_ recompute: RoleRecompute, _ connection: PostgresConnection, environmentID: String, now: Date) async throws
    {
        var binds = PostgresBindings()
        func parameter(_ value: some PostgresNonThrowingEncodable) -> String {
            binds.append(value)
            return "$\(binds.count)"
        }
        let changes = RoleRecomputeSQL.changes(recompute, environmentID: environmentID) { parameter($0) }
        let records = try RoleRecomputeSQL.records(recompute) { parameter($0) }
        let (environment, at) = (parameter(environmentID), parameter(now.timeIntervalSince1970))
        var statements = [
            "role_changes AS (\(changes))", records.sql,
            "audited AS (\(RoleRecomputeSQL.insertEntries(environment: environment, at: at)))",
        ]
        if records.hasEvents {
            let unplaced = (columns: "writer_xid, written", values: PostgresFeed.unplacedMark)
            statements.append("announced AS (\(RoleRecomputeSQL.insertEvents(environment: environment, at: at, unplaced: unplaced)))")
        }
        statements.append("updated AS (\(RoleRecomputeSQL.update) RETURNING u.id)")
        let notice = StandingChange.user(id: RoleRecompute.person).payload
        let sql = """
            WITH \(statements.joined(separator: ",\n"))
            SELECT pg_notify(\(parameter(PostgresChangeListener.channel)), replace(\(parameter(notice)), '\(RoleRecompute.person)', id))
            FROM updated
            """
        try await connection.execute(PostgresQuery(unsafeSQL: sql, binds: binds))
        if records.hasEvents { LifecycleWrites.current?.wrote() }
    }
}
