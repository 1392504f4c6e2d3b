public import ServiceLifecycle

/// Work a store starts that outlives the call that asked for it (a group commit's loop, a
/// feed's publishing), run as child tasks of one service: shutdown waits for what is under
/// way, and nothing runs after it.
///
/// The store's service list holds it, first, so it stops after the server has answered its
/// last request. Work asked for after that is refused, and the asker answers its caller
/// itself (see ``start(_:)``).
public final class BackgroundWork: Service, Sendable {
    private let queue: AsyncStream<@Sendable () async -> Void>
    private let intake: AsyncStream<@Sendable () async -> Void>.Continuation

    init() {
        (queue, intake) = AsyncStream.makeStream()
    }

    /// Runs `work` soon; `false` when this service has stopped and will run nothing more.
    func start(_ work: @escaping @Sendable () async -> Void) -> Bool {
        if case .terminated = intake.yield(work) { return false }
        return true
    }

    /// Takes no more work; ``run()`` returns once the work under way is done.
    func finish() {
        intake.finish()
    }

    /// Runs what is started until graceful shutdown or cancellation, then waits for the work
    /// under way.
    public func run() async {
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                for await work in queue {
                    group.addTask { await work() }
                }
            }
        } onGracefulShutdown: { [intake] in
            intake.finish()
        }
        // Cancelled rather than shut down: refuse from now on too.
        intake.finish()
    }
}
