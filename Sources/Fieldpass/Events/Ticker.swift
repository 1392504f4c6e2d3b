import ServiceLifecycle

/// Runs a piece of work on a timer, and at once when woken, until graceful shutdown.
///
/// Shutdown finishes the tick stream, which is a state rather than an event: a shutdown
/// that came before `run` started ends it just as well. (`cancelWhenGracefulShutdown` can
/// miss a shutdown triggered before it is entered, and then never returns.)
struct Ticker: Sendable {
    private let ticks: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() {
        // Ticks that pile up while the work runs collapse into one.
        (ticks, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Asks for the work to run now.
    func wake() {
        continuation.yield()
    }

    /// Runs `work` every `interval` and at each `wake()`, until graceful shutdown or cancellation.
    func run(
        every interval: Duration, isolation: isolated (any Actor)? = #isolation, _ work: () async -> Void
    ) async {
        let continuation = continuation
        await withGracefulShutdownHandler(isolation: isolation) {
            await withDiscardingTaskGroup(isolation: isolation) { group in
                group.addTask {
                    while (try? await Task.sleep(for: interval)) != nil {
                        continuation.yield()
                    }
                }
                for await _ in ticks {
                    await work()
                }
                group.cancelAll()
            }
        } onGracefulShutdown: {
            continuation.finish()
        }
    }
}
