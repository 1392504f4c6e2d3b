/// A document fetched from an IdP (discovery, JWKS) that every request needs, fetched so
/// that no volume of requests turns into the same volume of IdP calls:
/// - one fetch at a time, whose result every caller that arrives meanwhile shares;
/// - a failure is remembered for `retryDelay`, and answered from memory until then;
/// - a refresh (say, for an unknown `kid`) fetches again only if the last attempt is at
///   least `retryDelay` old; otherwise the cached value is the answer.
actor SharedFetch<Value: Sendable> {
    private let retryDelay: Duration
    /// The time; tests move it by hand.
    private let now: @Sendable () -> ContinuousClock.Instant
    private let fetch: @Sendable () async throws(OIDCError) -> Value
    private var cached: Value?
    private var inFlight: Task<Value, any Error>?
    private var lastAttempt: ContinuousClock.Instant?
    private var lastFailure: OIDCError?

    init(
        retryDelay: Duration, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now },
        fetch: @escaping @Sendable () async throws(OIDCError) -> Value
    ) {
        self.retryDelay = retryDelay
        self.now = now
        self.fetch = fetch
    }

    /// The cached value, fetched first if there is none.
    func value() async throws(OIDCError) -> Value {
        if let cached { return cached }
        return try await fetchOnce()
    }

    /// A newly fetched value, or the cached one when the last attempt is too recent.
    func refreshed() async throws(OIDCError) -> Value {
        if let cached, let lastAttempt, now() - lastAttempt < retryDelay { return cached }
        return try await fetchOnce()
    }

    private func fetchOnce() async throws(OIDCError) -> Value {
        if let inFlight { return try await Self.outcome(of: inFlight) }
        if let lastFailure, let lastAttempt, now() - lastAttempt < retryDelay { throw lastFailure }
        let fetch = self.fetch
        let task = Task { () async throws -> Value in try await fetch() }
        inFlight = task
        lastAttempt = now()
        defer { inFlight = nil }
        do {
            let value = try await Self.outcome(of: task)
            cached = value
            lastFailure = nil
            return value
        } catch {
            lastFailure = error
            throw error
        }
    }

    private static func outcome(of task: Task<Value, any Error>) async throws(OIDCError) -> Value {
        do {
            return try await task.value
        } catch let error as OIDCError {
            throw error
        } catch {
            throw OIDCError.idpUnavailable("the identity provider could not be reached")
        }
    }
}
