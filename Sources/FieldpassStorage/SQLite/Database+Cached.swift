import GRDB

extension Database {
    /// Executes `sql` through the connection's statement cache: prepared once, then reused,
    /// so the hot paths do not compile their SQL again on every request.
    func execute(cached sql: String, arguments: StatementArguments = StatementArguments()) throws {
        try cachedStatement(sql: sql).execute(arguments: arguments)
    }
}
