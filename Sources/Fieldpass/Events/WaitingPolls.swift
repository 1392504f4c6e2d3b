import Synchronization

/// The one waiting long-poll of each session, by its hub subscription.
///
/// A device whose connection dropped mid-poll polls again at once, and the server cannot see
/// that the old request's client has gone: a newer poll of the session ends the older one's
/// wait, so abandoned polls never fill the session's socket places.
final class WaitingPolls: Sendable {
    private let latest = Mutex<[String: Int]>([:])

    /// The session's waiting poll, if any.
    func current(sessionID: String) -> Int? {
        latest.withLock { $0[sessionID] }
    }

    /// Makes `id` the session's waiting poll; returns the one it replaces.
    func replace(sessionID: String, with id: Int) -> Int? {
        latest.withLock { $0.updateValue(id, forKey: sessionID) }
    }

    /// Forgets `id`, unless a newer poll has taken its place already.
    func remove(sessionID: String, id: Int) {
        latest.withLock { latest in
            if latest[sessionID] == id { latest[sessionID] = nil }
        }
    }
}
