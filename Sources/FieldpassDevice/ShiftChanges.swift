import Foundation

/// The changes of a shared device's shifts, followed over Fieldpass's long-poll
/// (`GET /shared_devices/events`, proven by the device's key).
///
/// Each poll asks for the changes after the last one handed out, so a dropped connection or a
/// restarted server loses none and repeats none: the sequence waits (with ``Backoff``) and asks
/// again from where it was. It never ends by itself: once the device is unenrolled it throws
/// ``FieldpassClientError/notEnrolled`` (within seconds, at its next look at the store), and the
/// shift's tokens are forgotten. A shift that unenrolling ended is not heard as a `shiftEnded`:
/// the device's key hears nothing from then on.
public struct ShiftChanges: AsyncSequence, Sendable {
    public typealias Element = ShiftChange

    let http: FieldpassHTTP
    /// The device's client, whose tokens are forgotten when the device turns out unenrolled.
    let client: FieldpassClient
    let after: Int

    public func makeAsyncIterator() -> Iterator {
        Iterator(http: http, client: client, after: after)
    }

    public struct Iterator: AsyncIteratorProtocol {
        let http: FieldpassHTTP
        let client: FieldpassClient
        private var after: Int
        private var pending: [Event] = []
        private var backoff = Backoff()

        init(http: FieldpassHTTP, client: FieldpassClient, after: Int) {
            self.http = http
            self.client = client
            self.after = after
        }

        public mutating func next() async throws -> ShiftChange? {
            while true {
                try Task.checkCancellation()
                if !pending.isEmpty {
                    let event = pending.removeFirst()
                    after = event.seq
                    if let change = event.change { return change }
                } else {
                    try await poll()
                }
            }
        }

        /// One long-poll; on a failure worth retrying, a wait first.
        private mutating func poll() async throws {
            guard var components = URLComponents(url: http.url("shared_devices/events"), resolvingAgainstBaseURL: false) else {
                throw FieldpassClientError.unexpectedResponse(status: 0)
            }
            components.queryItems = [URLQueryItem(name: "after", value: String(after)), URLQueryItem(name: "wait", value: "30")]
            guard let url = components.url else { throw FieldpassClientError.unexpectedResponse(status: 0) }
            do {
                // Longer than the server's longest wait, so only a dead connection times out.
                let (status, body) = try await http.proven("GET", url, timeout: 45)
                guard status == 200 else { throw try await SharedDevice.deviceFailure(status: status, body: body, client: client) }
                let page = try Shift.decoder.decode(Page.self, from: body)
                backoff.reset()
                pending = page.events.filter { $0.seq > after }.sorted { $0.seq < $1.seq }
            } catch let error where FieldpassHTTP.isTransient(error) {
                try await Task.sleep(for: backoff.next())
            }
        }
    }

    struct Page: Decodable {
        var events: [Event]
    }

    /// One event as Fieldpass sends it.
    struct Event: Decodable {
        var seq: Int
        var type: String
        var shift_id: String
        var user_id: String
        var email: String
        var reason: String?
        var at: Date

        /// The change it stands for; `nil` for a kind this version does not know.
        var change: ShiftChange? {
            let kind: ShiftChange.Kind
            switch type {
            case "shift_started": kind = .shiftStarted
            case "shift_ended": kind = .shiftEnded(reason: reason ?? "")
            default: return nil
            }
            return ShiftChange(seq: seq, kind: kind, shiftID: shift_id, userID: user_id, email: email, at: at)
        }
    }
}
