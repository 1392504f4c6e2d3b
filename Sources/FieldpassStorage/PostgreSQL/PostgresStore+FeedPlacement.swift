import PostgresNIO

extension PostgresStore {
    /// Places every row of `feed` that committed before this call (see ``PostgresFeed``), so
    /// that a read after it sees them: a change is in the feed once its write has answered.
    ///
    /// Rows whose positions must come after those of a transaction still open wait for it,
    /// and so does this call, at most ``placingWait``, after which the read goes on without
    /// them (a follower gets them at a later read: late, never skipped). The event hubs do not
    /// wait: they read what the publishing after every commit placed, and place what is left
    /// at their safety net's looks (``events(afterRowID:limit:)``).
    func placeCommitted(_ feed: PostgresFeed) async throws {
        guard let newest = try await read({ connection in try await connection.value(feed.newestUnplacedWriter, as: String.self) })
        else { return }
        let deadline = ContinuousClock.now + Self.placingWait
        while ContinuousClock.now < deadline {
            let waiting = try await read { connection in try await connection.value(feed.place(upTo: newest), as: Bool.self) }
            guard waiting == true else { return }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    /// How long a feed read waits for older transactions to end (see ``placeCommitted(_:)``):
    /// the safety net's interval, after which a follower would look again anyway.
    static let placingWait = Duration.seconds(1)

    /// Makes committed writes to `feed` visible soon, without waiting (see ``FeedPublisher``):
    /// the caller's answer needs no placing, since a read places what is left first.
    func publish(_ feed: PostgresFeed) {
        publisher.request(feed) { [self] feed in await placeAndNotify(feed) }
    }

    /// Places the committed rows, after any placing under way (no writer waits for this: it
    /// runs after their answers), then wakes the readers of `feed` on every instance. So a
    /// read finds the rows of every finished write placed, unless an older transaction was
    /// still open; the publishing after that one's commit places them.
    ///
    /// The notification is sent by the placing's own transaction, which commits without
    /// waiting for the WAL flush (see ``PostgresFeed/placingFunctionSQL``): PostgreSQL queues
    /// notifications under one lock for the whole server, held until the notifying
    /// transaction has committed, so a notification sent from a writing transaction that
    /// waits for its flush would make every notifying commit wait for the one before.
    /// Failures are left to the readers' safety net: the writes themselves have committed.
    private func placeAndNotify(_ feed: PostgresFeed) async {
        _ = try? await read { connection in try await connection.execute(feed.placeAndNotify) }
    }
}
