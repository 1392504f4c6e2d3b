import Foundation
import GRDB
import Testing
@testable import FieldpassDomain
@testable import FieldpassStorage

@Suite("SQLite change watcher")
struct SQLiteChangeWatcherTests {
    @Test("another process's commit wakes this one's readers, and an idle file wakes nobody")
    func anotherConnectionsCommitsSignal() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fieldpass-watcher-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("fieldpass.sqlite").path
        let store = try SQLiteStore(path: path)
        try store.migrate()
        // Another process on the same file, as the CLI is: its commits signal nothing here.
        let other = try DatabaseQueue(path: path)
        try await other.write { try $0.execute(sql: "CREATE TABLE watched (n INTEGER)") }
        let signal = store.lifecycleFeed

        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await SQLiteChangeWatcher(store: store).run() }
            let start = signal.generation
            // A commit before the watcher's first look sets where it starts: commit until one is seen.
            for n in 1...50 where signal.generation == start {
                try await other.write { try $0.execute(sql: "INSERT INTO watched VALUES (?)", arguments: [n]) }
                await signal.wait(atMost: .milliseconds(500), after: start)
            }
            #expect(signal.generation != start, "another connection's commit was never signalled")

            let seen = signal.generation
            await signal.wait(atMost: .milliseconds(500), after: seen)
            #expect(signal.generation == seen, "nothing was committed, yet readers were woken")
            group.cancelAll()
        }
    }
}
