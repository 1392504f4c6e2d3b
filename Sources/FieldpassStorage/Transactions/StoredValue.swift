import FieldpassDomain
import Foundation
import GRDB
import PostgresNIO

/// A value a statement both stores run binds or reads: the same Swift type on either side,
/// so an operation written once reads and writes its columns once (see ``StoreTransaction``).
protocol StoredValue: Sendable {
    /// The value as SQLite binds it.
    var sqliteValue: DatabaseValue { get }
    /// Appends the value to a PostgreSQL statement's binds.
    func bind(to bindings: inout PostgresBindings)
    /// The value of a SQLite column; a column of another type is a programming error.
    static func read(sqlite value: DatabaseValue) throws -> Self
    /// The value of a PostgreSQL column.
    static func read(postgres cell: PostgresCell) throws -> Self
}

/// A value both drivers know as a column of one type.
protocol PlainStoredValue: StoredValue, DatabaseValueConvertible, PostgresCodable, PostgresNonThrowingEncodable {}

extension PlainStoredValue {
    var sqliteValue: DatabaseValue { databaseValue }

    func bind(to bindings: inout PostgresBindings) { bindings.append(self) }

    static func read(sqlite value: DatabaseValue) throws -> Self {
        guard let decoded = fromDatabaseValue(value) else { throw StoreInconsistency("a \(Self.self) column holds \(value)") }
        return decoded
    }

    static func read(postgres cell: PostgresCell) throws -> Self { try cell.decode(Self.self) }
}

extension String: PlainStoredValue {}
extension Int: PlainStoredValue {}
extension Int64: PlainStoredValue {}
extension Double: PlainStoredValue {}
extension Bool: PlainStoredValue {}
extension Data: PlainStoredValue {}

/// A list of text: one JSON array to SQLite (read with `json_each`), a `text[]` to PostgreSQL
/// (read with `unnest` or `ANY`). Statements that take one are written for each dialect.
extension Array: StoredValue where Element == String {
    var sqliteValue: DatabaseValue {
        // A list of strings always encodes.
        (try? StableJSON.text(self)).databaseValue
    }
    func bind(to bindings: inout PostgresBindings) { bindings.append(self) }
    static func read(sqlite value: DatabaseValue) throws -> [String] {
        guard let text = String.fromDatabaseValue(value) else { throw StoreInconsistency("a list column holds \(value)") }
        return try JSONDecoder().decode([String].self, from: Data(text.utf8))
    }
    static func read(postgres cell: PostgresCell) throws -> [String] { try cell.decode([String].self) }
}

extension Optional: StoredValue where Wrapped: StoredValue {
    var sqliteValue: DatabaseValue { self?.sqliteValue ?? .null }

    func bind(to bindings: inout PostgresBindings) {
        if let self { self.bind(to: &bindings) } else { bindings.appendNull() }
    }

    static func read(sqlite value: DatabaseValue) throws -> Wrapped? {
        value.isNull ? nil : try Wrapped.read(sqlite: value)
    }

    static func read(postgres cell: PostgresCell) throws -> Wrapped? {
        cell.bytes == nil ? nil : try Wrapped.read(postgres: cell)
    }
}
