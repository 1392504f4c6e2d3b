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
}
