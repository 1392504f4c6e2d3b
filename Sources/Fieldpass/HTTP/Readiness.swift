import FieldpassDomain
import Synchronization

/// Where this instance is in its life, for `/readyz`: starting until the server listens,
/// serving, then draining from SIGTERM until it stops.
public final class Readiness: Sendable {
    /// The phases, in the only order they happen.
    public enum Phase: UInt8, Sendable {
        case starting, serving, draining
    }

    private let value = Atomic<UInt8>(Phase.starting.rawValue)
    /// Signalled when draining begins, so that waiting long-polls answer then rather than at
    /// their next look.
    let draining = ChangeSignal()

    /// Whether draining is over and the event sockets are being closed (``markStopping()``).
    private let stoppingFlag = Atomic<Bool>(false)
    /// Signalled when the sockets are to close.
    private let stopping = ChangeSignal()
    /// Event sockets open now.
    private let openSockets = Atomic<Int>(0)

    public init() {}

    /// The current phase.
    public var phase: Phase {
        Phase(rawValue: value.load(ordering: .acquiring)) ?? .draining
    }

    /// The server listens; a draining instance stays draining.
    public func markServing() {
        _ = value.compareExchange(expected: Phase.starting.rawValue, desired: Phase.serving.rawValue, ordering: .acquiringAndReleasing)
    }

    /// Shutdown has begun.
    public func markDraining() {
        value.store(Phase.draining.rawValue, ordering: .releasing)
        draining.signal()
    }

    /// Draining is over: every event socket closes now with 1001 ("going away"), which tells
    /// its device to reconnect, before the server stops and its connections close with 1000,
    /// which would tell the device that its session had nothing more to say.
    public func markStopping() {
        stoppingFlag.store(true, ordering: .releasing)
        stopping.signal()
    }

    var isStopping: Bool { stoppingFlag.load(ordering: .acquiring) }

    /// Returns once ``markStopping()`` was called, or when the task is cancelled.
    func untilStopping() async {
        while !isStopping, !Task.isCancelled {
            let generation = stopping.generation
            if isStopping { return }
            await stopping.wait(atMost: .seconds(3600), after: generation)
        }
    }

    /// Counts an event socket for ``socketsClosed(within:)`` while `body` runs.
    func holdingSocket<T>(_ body: () async throws -> T) async rethrows -> T {
        openSockets.add(1, ordering: .relaxed)
        defer { openSockets.subtract(1, ordering: .relaxed) }
        return try await body()
    }

    /// Returns once no event socket is open, or after `limit`: a device that does not answer
    /// the close holds up no shutdown. Answers whether every socket closed.
    @discardableResult
    public func socketsClosed(within limit: Duration) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while openSockets.load(ordering: .relaxed) > 0 {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }
}
