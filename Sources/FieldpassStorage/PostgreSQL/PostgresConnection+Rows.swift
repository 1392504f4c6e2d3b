import Logging
import PostgresNIO

/// The few ways the PostgreSQL store runs a statement. Each is a named prepared statement
/// (see ``PreparedByText``): PostgreSQL parses and plans it once per connection, not at every
/// call.
extension PostgresConnection {
    /// Every row of `query`.
    func rows(_ query: PostgresQuery) async throws -> [PostgresRandomAccessRow] {
        try await prepared(query).map { $0.makeRandomAccess() }
    }

    /// The first row of `query`, if any.
    func first(_ query: PostgresQuery) async throws -> PostgresRandomAccessRow? {
        try await rows(query).first
    }

    /// The single value of the first row, if any.
    func value<T: PostgresDecodable>(_ query: PostgresQuery, as type: T.Type = T.self) async throws -> T? {
        try await prepared(query).first?.decode(T.self)
    }

    /// Every row's single value.
    func values<T: PostgresDecodable>(_ query: PostgresQuery, as type: T.Type = T.self) async throws -> [T] {
        try await prepared(query).map { try $0.decode(T.self) }
    }

    /// Runs a statement for its effect. To learn how many rows it changed, end it with
    /// `RETURNING 1` and count ``rows(_:)``.
    func execute(_ query: PostgresQuery) async throws {
        _ = try await prepared(query)
    }

    private func prepared(_ query: PostgresQuery) async throws -> [PostgresRow] {
        try await PreparedByText.$statement.withValue(PreparedByText.Statement(query)) {
            let rows: AsyncThrowingMapSequence<PostgresRowSequence, PostgresRow> = try await execute(
                PreparedByText(bindings: query.binds), logger: PostgresStore.queryLogger)
            var collected: [PostgresRow] = []
            for try await row in rows { collected.append(row) }
            return collected
        }
    }
}

/// A statement run as a prepared statement named after its text.
///
/// PostgresNIO prepares a statement on a connection the first time it is run there (again
/// on a new connection after a reconnect) and runs it by name afterwards. Its API names a
/// statement by a type, reading the type's `name` and `sql` when the statement is run; the
/// store's statements are written inline instead, so this one type answers with the
/// statement being run, which ``PostgresConnection/prepared(_:)`` sets for that call. The
/// name is a hash of the text, so two statements never share one; the values' types are
/// taken from the first run's values, as every statement's values have one Swift type each.
private struct PreparedByText: PostgresPreparedStatement {
    struct Statement: Sendable {
        var name: String
        var sql: String

        init(_ query: PostgresQuery) {
            // FNV-1a, 64 bits: stable across runs and processes, unlike `Hasher`.
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in query.sql.utf8 {
                hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            }
            name = "fieldpass_" + String(hash, radix: 16)
            sql = query.sql
        }
    }

    @TaskLocal static var statement = Statement(PostgresQuery(unsafeSQL: ""))

    static var name: String { statement.name }
    static var sql: String { statement.sql }

    let bindings: PostgresBindings

    func makeBindings() -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) -> PostgresRow { row }
}

extension PostgresQuery {
    /// A statement both stores run (``SharedStatement``), `values` bound to `$1`, `$2`, … in
    /// order; `nil` is `NULL`.
    init(_ statement: SharedStatement, _ values: (any PostgresDynamicTypeEncodable)?...) {
        var binds = PostgresBindings()
        for value in values {
            if let value { binds.append(value) } else { binds.appendNull() }
        }
        self.init(unsafeSQL: statement.postgres, binds: binds)
    }
}

/// `FOR UPDATE` when a read must lock its row until the transaction ends; a fixed literal,
/// never a value, so it may be spliced into the query text.
func lockClause(_ forUpdate: Bool) -> String {
    forUpdate ? " FOR UPDATE" : ""
}

extension PostgresRandomAccessRow {
    /// The value of `column`, decoded; a missing column is a programming error.
    func get<T: PostgresDecodable>(_ column: String, as type: T.Type = T.self) throws -> T {
        try self[column].decode(T.self)
    }
}
