import Foundation
import GRDB
import Testing
@testable import FieldpassDomain
@testable import FieldpassStorage
import StoreTestSupport

@Suite("Store unavailability")
struct StoreUnavailableTests {
    @Test("a write to a read-only database is an unavailability, a constraint is not")
    func classification() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fieldpass-readonly-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("fieldpass.sqlite").path
        let store = try SQLiteStore(path: path)
        try store.migrate()
        var configuration = Configuration()
        configuration.readonly = true
        let readOnly = try DatabaseQueue(path: path, configuration: configuration)
        let writeError = try #require(throws: DatabaseError.self) {
            try readOnly.inDatabase { db in try db.execute(sql: "DELETE FROM users") }
        }
        #expect(StoreUnavailable(classifying: writeError)?.reason == "SQLite: database is read-only")

        let writable = try DatabaseQueue(path: path)
        let constraint = try #require(throws: DatabaseError.self) {
            try writable.inDatabase { db in try db.execute(sql: "INSERT INTO users (id) VALUES (NULL)") }
        }
        #expect(StoreUnavailable(classifying: constraint) == nil)
        #expect(StoreUnavailable(classifying: CancellationError()) == nil)
    }
}
