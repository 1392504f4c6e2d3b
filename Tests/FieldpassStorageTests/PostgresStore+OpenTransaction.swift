import PostgresNIO
@testable import FieldpassStorage

extension PostgresStore {
    /// Runs `first` in a transaction of this store, then `body` while that transaction stays
    /// open, then commits it; answers what `body` answers. The transaction is committed
    /// whether or not `body` throws, so a failing test leaves no connection waiting.
    func withTransactionOpen<T: Sendable>(
        running first: @escaping @Sendable (PostgresConnection) async throws -> Void,
        during body: () async throws -> T
    ) async throws -> T {
        let (opened, openedSignal) = AsyncStream.makeStream(of: Void.self)
        let (release, releaseSignal) = AsyncStream.makeStream(of: Void.self)
        let open = Task {
            // Ends the wait below also when `first` fails; `open.value` then throws its error.
            defer { openedSignal.finish() }
            try await write { connection in
                try await first(connection)
                openedSignal.yield()
                for await _ in release { break }
            }
        }
        for await _ in opened { break }
        let answer: Result<T, any Error>
        do { answer = .success(try await body()) } catch { answer = .failure(error) }
        releaseSignal.yield()
        try await open.value
        return try answer.get()
    }
}
