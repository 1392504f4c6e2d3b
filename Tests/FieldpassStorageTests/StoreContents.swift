import Foundation
import GRDB
import Logging
import PostgresNIO
import Testing
@testable import FieldpassStorage
import StoreTestSupport

extension StoreTestEnvironment {
    /// The tables of the store (every one its schema made, as its catalog lists them) that
    /// hold `text` in some value: to prove that a secret or a removed user is nowhere in it.
    func tablesContaining(_ text: String) async throws -> [String] {
        switch store {
        case let sqlite as SQLiteStore:
            return try await sqlite.pool.read { db in
                let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
                return try tables.filter { table in
                    try Row.fetchAll(db, sql: "SELECT * FROM \"\(table)\"").contains { row in
                        row.databaseValues.contains { value in Self.text(of: value)?.contains(text) == true }
                    }
                }
            }
        case let postgres as PostgresStore:
            let logger = Logger(label: "test.postgres")
            var tables: [String] = []
            let names = try await postgres.client.query(
                "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename", logger: logger
            )
            for try await name in names.decode(String.self) { tables.append(name) }
            var holding: [String] = []
            for table in tables {
                let rows = try await postgres.client.query(
                    "SELECT count(*) FROM \(unescaped: "\"\(table)\"") AS r WHERE strpos(r::text, \(text)) > 0", logger: logger
                )
                for try await count in rows.decode(Int.self) where count > 0 { holding.append(table) }
            }
            return holding
        default:
            Issue.record("no way to read a \(type(of: store))")
            return []
        }
    }

    private static func text(of value: DatabaseValue) -> String? {
        switch value.storage {
        case .string(let string): string
        case .blob(let data): String(decoding: data, as: UTF8.self)
        default: nil
        }
    }
}
