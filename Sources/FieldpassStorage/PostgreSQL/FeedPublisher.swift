import Synchronization

/// Runs the after-commit publishing of each feed (placing, then `NOTIFY`) once at a time per
/// instance, shared by every commit that asks while one runs.
///
/// A commit asks and goes on at once: its caller need not wait, since a reader places
/// whatever is still unplaced before it reads (``PostgresStore/placeCommitted(_:)``), or has
/// this publisher do it and waits for that (``publishAndWait(_:publish:)``). The requests that
/// arrive while a run is under way are served together by one more run, so at a thousand
/// commits a second the feed costs a few placing transactions and notifications a second
/// rather than one of each per commit. Runs are children of ``BackgroundWork``.
final class FeedPublisher: Sendable {
    private struct Runs {
        var running: Set<PostgresFeed> = []
        var askedAgain: Set<PostgresFeed> = []
        /// Runs started and finished so far, by feed: a request is served by the run it starts
        /// or, when one is under way, by the one after it.
        var started: [PostgresFeed: Int] = [:]
        var finished: [PostgresFeed: Int] = [:]
        var waiting: [PostgresFeed: [(run: Int, continuation: CheckedContinuation<Void, Never>)]] = [:]
    }

    private let runs = Mutex(Runs())
    /// Where the runs happen; the store's services hold it.
    let work = BackgroundWork()

    /// Publishes `feed` with `publish` soon: now, or right after the run under way.
    func request(_ feed: PostgresFeed, publish: @escaping @Sendable (PostgresFeed) async -> Void) {
        _ = start(feed, publish: publish)
    }

    /// Publishes `feed` as ``request(_:publish:)`` does, and returns once the run that serves
    /// this request has finished (at once after shutdown, when nothing runs any more).
    func publishAndWait(_ feed: PostgresFeed, publish: @escaping @Sendable (PostgresFeed) async -> Void) async {
        guard let run = start(feed, publish: publish) else { return }
        await withCheckedContinuation { continuation in
            let done = runs.withLock { runs in
                guard runs.finished[feed, default: 0] < run else { return true }
                runs.waiting[feed, default: []].append((run, continuation))
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// The number of the run that will serve a request made now, starting one if none is
    /// under way; `nil` after shutdown.
    private func start(_ feed: PostgresFeed, publish: @escaping @Sendable (PostgresFeed) async -> Void) -> Int? {
        let (run, starts) = runs.withLock { runs in
            let next = runs.started[feed, default: 0] + 1
            guard !runs.running.contains(feed) else {
                runs.askedAgain.insert(feed)
                return (next, false)
            }
            runs.running.insert(feed)
            runs.started[feed] = next
            return (next, true)
        }
        guard starts else { return run }
        let started = work.start {
            var more = true
            while more {
                await publish(feed)
                let served: [CheckedContinuation<Void, Never>]
                (more, served) = self.runs.withLock { runs in
                    let finished = runs.started[feed, default: 0]
                    runs.finished[feed] = finished
                    let waiting = runs.waiting[feed, default: []]
                    runs.waiting[feed] = waiting.filter { $0.run > finished }
                    let served = waiting.filter { $0.run <= finished }.map(\.continuation)
                    guard runs.askedAgain.remove(feed) != nil else {
                        runs.running.remove(feed)
                        return (false, served)
                    }
                    runs.started[feed] = finished + 1
                    return (true, served)
                }
                served.forEach { $0.resume() }
            }
        }
        guard started else {
            // Shut down: the next reader places what is unplaced, and its instance announces it.
            runs.withLock { runs in
                runs.running.remove(feed)
                runs.finished[feed] = runs.started[feed]
            }
            return nil
        }
        return run
    }
}
