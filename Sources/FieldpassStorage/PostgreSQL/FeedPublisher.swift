import Synchronization

/// Runs the after-commit publishing of each feed (placing, then `NOTIFY`) once at a time per
/// instance, shared by every commit that asks while one runs.
///
/// A commit asks and goes on at once: its caller need not wait, since a reader places
/// whatever is still unplaced before it reads (``PostgresStore/placeCommitted(_:)``). The
/// requests that arrive while a run is under way are served together by one more run, so at
/// a thousand commits a second the feed costs a few placing transactions and notifications a
/// second rather than one of each per commit; a feed whose readers can wait a little
/// gathers more commits per run (``PostgresFeed/publishingDelay``). Runs are children of
/// ``BackgroundWork``.
final class FeedPublisher: Sendable {
    private struct Runs {
        var running: Set<PostgresFeed> = []
        var askedAgain: Set<PostgresFeed> = []
    }

    private let runs = Mutex(Runs())
    /// Where the runs happen; the store's services hold it.
    let work = BackgroundWork()

    /// Publishes `feed` with `publish` soon: now, or right after the run under way.
    func request(_ feed: PostgresFeed, publish: @escaping @Sendable (PostgresFeed) async -> Void) {
        let starts = runs.withLock { runs in
            guard !runs.running.contains(feed) else {
                runs.askedAgain.insert(feed)
                return false
            }
            runs.running.insert(feed)
            return true
        }
        guard starts else { return }
        let started = work.start {
            repeat {
                // Cancelled at shutdown: publish at once, the last time. A sleep of zero still
                // costs a timer, once per run.
                if feed.publishingDelay > .zero { try? await Task.sleep(for: feed.publishingDelay) }
                await publish(feed)
            } while self.runs.withLock { runs in
                if runs.askedAgain.remove(feed) != nil { return true }
                runs.running.remove(feed)
                return false
            }
        }
        // Shut down: the next reader places what is unplaced, and its instance announces it.
        if !started { _ = runs.withLock { $0.running.remove(feed) } }
    }
}
