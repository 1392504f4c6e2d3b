import Dispatch
import Synchronization

/// Runs an operation written once (`async`, see ``TransactionalStore``) on the thread GRDB
/// gave a database access, inside that access: SQLite keeps its one writer, its synchronous
/// statements and its speed, and GRDB's check that a database is used on its own queue holds.
///
/// The operation's task prefers this executor, so its jobs are handed here, and ``run(_:)``
/// runs them on the calling thread until the task is done. SQLite's transaction never
/// suspends, so an operation is one job and costs about a microsecond more than a closure;
/// an operation that did suspend would block the access until it is resumed here.
final class WriterThreadExecutor: TaskExecutor, @unchecked Sendable {
    private let jobs = Mutex<[UnownedJob]>([])
    private let jobArrived = DispatchSemaphore(value: 0)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        jobArrived.signal()
    }

    /// Runs `operation` to its end on this thread.
    static func run<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) throws -> T {
        let executor = WriterThreadExecutor()
        let outcome = Mutex<Result<T, any Error>?>(nil)
        Task(executorPreference: executor) {
            let result: Result<T, any Error>
            do { result = .success(try await operation()) } catch { result = .failure(error) }
            outcome.withLock { $0 = result }
        }
        while true {
            executor.jobArrived.wait()
            let job = executor.jobs.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            job?.runSynchronously(on: executor.asUnownedTaskExecutor())
            if let result = outcome.withLock({ $0 }) { return try result.get() }
        }
    }
}
