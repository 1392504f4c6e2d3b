import Logging
import PostgresNIO

/// The few ways the PostgreSQL store runs a statement.
extension PostgresConnection {
    /// Every row of `query`.
    func rows(_ query: PostgresQuery) async throws -> [PostgresRandomAccessRow] {
        try await self.query(query, logger: PostgresStore.queryLogger).collect().map { $0.makeRandomAccess() }
    }

    /// The first row of `query`, if any.
    func first(_ query: PostgresQuery) async throws -> PostgresRandomAccessRow? {
        try await rows(query).first
    }

    /// The single value of the first row, if any.
    func value<T: PostgresDecodable>(_ query: PostgresQuery, as type: T.Type = T.self) async throws -> T? {
        try await self.query(query, logger: PostgresStore.queryLogger).collect().first?.decode(T.self)
    }

    /// Every row's single value.
    func values<T: PostgresDecodable>(_ query: PostgresQuery, as type: T.Type = T.self) async throws -> [T] {
        try await self.query(query, logger: PostgresStore.queryLogger).collect().map { try $0.decode(T.self) }
    }

    /// Runs a statement for its effect. To learn how many rows it changed, end it with
    /// `RETURNING 1` and count ``rows(_:)``.
    func execute(_ query: PostgresQuery) async throws {
        try await self.query(query, logger: PostgresStore.queryLogger)
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
