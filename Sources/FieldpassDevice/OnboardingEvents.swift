import Foundation

/// The events of one onboarding, followed over Fieldpass's HTTP long-poll (`events_url`).
///
/// Each poll asks for the events after the last one delivered (`after`), so a dropped
/// connection or a restarted server loses none and repeats none: the client waits (with
/// ``Backoff``) and asks again from where it was, until the session's expiry has passed.
/// The token event's tokens are saved in the client's ``TokenStore`` before `.signedIn` is
/// handed out; when that save fails, the error is thrown and the next call tries it again. The
/// sequence ends after `.dataReady`, and throws ``OnboardingError`` when the sign-in fails or
/// the session expires.
///
/// Fieldpass keeps answering a poll with the same events, token included, until the device
/// acknowledges the last one by asking past it. So on receiving it the sequence sends that one
/// poll (`after` its `seq`, `wait=0`) before it hands the event out or throws, as the caller may
/// stop there; it does not wait long for the answer nor mind its failure, since the session
/// ends after a grace anyway.
///
/// Long-polling works on every network and platform (`URLSessionWebSocketTask` is missing on
/// Linux); an answer reaches the device as soon as Fieldpass stores the event.
public struct OnboardingEvents: AsyncSequence, Sendable {
    public typealias Element = OnboardingEvent

    let http: FieldpassHTTP
    let eventsURL: URL
    let store: any TokenStore
    /// When to stop retrying a server that cannot be reached: the session is over by then.
    let expiresAt: Date

    public func makeAsyncIterator() -> Iterator {
        Iterator(events: self)
    }

    /// `events_url` asking for the events after `after`, waiting up to `wait` seconds for one.
    func url(after: Int, wait: Int) throws -> URL {
        guard var components = URLComponents(url: eventsURL, resolvingAgainstBaseURL: false) else {
            throw FieldpassClientError.unexpectedResponse(status: 0)
        }
        let asked = [URLQueryItem(name: "after", value: String(after)), URLQueryItem(name: "wait", value: String(wait))]
        components.queryItems = (components.queryItems ?? []) + asked
        guard let url = components.url else { throw FieldpassClientError.unexpectedResponse(status: 0) }
        return url
    }

    public struct Iterator: AsyncIteratorProtocol {
        let events: OnboardingEvents
        private var after = 0
        private var pending: [Frame] = []
        private var sessionEnded = false
        private var finished = false
        private var backoff = Backoff()

        init(events: OnboardingEvents) {
            self.events = events
        }

        public mutating func next() async throws -> OnboardingEvent? {
            while !finished {
                if let frame = pending.first {
                    // Passed only once delivered, so `after` is always the last event delivered:
                    // one whose tokens could not be saved is tried again, not skipped.
                    let event = try await deliver(frame)
                    pending.removeFirst()
                    after = frame.seq
                    if let event { return event }
                } else if sessionEnded {
                    // Ended, yet its last event is not among those after ours: it expired long
                    // ago and was cleaned up, or another connection of this device took it.
                    finished = true
                    throw OnboardingError.sessionExpired
                } else {
                    try await poll()
                }
            }
            return nil
        }

        /// The event a frame stands for; `nil` for a kind this version does not know.
        private mutating func deliver(_ frame: Frame) async throws -> OnboardingEvent? {
            if ["data_ready", "login_failed", "session_expired"].contains(frame.type) {
                finished = true
                await acknowledge(frame.seq)
            }
            switch frame.type {
            case "token":
                guard let access = frame.access_token, let refresh = frame.refresh_token, let expiresIn = frame.expires_in else {
                    throw FieldpassClientError.unexpectedResponse(status: 200)
                }
                let tokens = TokenSet(
                    accessToken: access, refreshToken: refresh, expiresAt: Date().addingTimeInterval(TimeInterval(expiresIn)))
                try await events.store.save(tokens)
                return .signedIn(tokens)
            case "realm_initialized":
                return .realmInitialized(path: frame.realm_path ?? "")
            case "data_ready":
                return .dataReady(path: frame.realm_path ?? "")
            case "login_failed":
                throw OnboardingError.loginFailed(code: frame.error ?? "login_failed", description: frame.error_description)
            case "session_expired":
                throw OnboardingError.sessionExpired
            default:
                return nil
            }
        }

        /// The poll past the last event that tells Fieldpass it arrived, so the session ends and
        /// its token event is forgotten now. Best effort: a lost acknowledgement only leaves the
        /// session to end at the server's grace, so its failure is not the caller's.
        private func acknowledge(_ seq: Int) async {
            guard let url = try? events.url(after: seq, wait: 0) else { return }
            _ = try? await events.http.get(url, timeout: 5)
        }

        /// One long-poll; on a failure worth retrying, a wait first.
        private mutating func poll() async throws {
            let url = try events.url(after: after, wait: 30)
            do {
                // Longer than the server's longest wait, so only a dead connection times out.
                let (status, body) = try await events.http.get(url, timeout: 45)
                guard status == 200 else { throw FieldpassHTTP.failure(status: status, body: body) }
                let page = try JSONDecoder().decode(Page.self, from: body)
                backoff.reset()
                pending = page.events.filter { $0.seq > after }
                sessionEnded = page.ended
            } catch let error where FieldpassHTTP.isTransient(error) && Date() < events.expiresAt {
                try await Task.sleep(for: backoff.next())
            }
        }
    }

    /// An answer of `events_url`.
    struct Page: Decodable {
        var events: [Frame]
        var ended: Bool
    }

    /// One event as Fieldpass sends it, on the socket and the long-poll alike.
    struct Frame: Decodable {
        var seq: Int
        var type: String
        var access_token: String?
        var refresh_token: String?
        var expires_in: Int?
        var realm_path: String?
        var error: String?
        var error_description: String?
    }
}
