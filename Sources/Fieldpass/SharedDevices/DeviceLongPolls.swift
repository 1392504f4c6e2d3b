import FieldpassDomain
import Synchronization

/// The places of shared devices' long-polls (`GET /shared_devices/events?wait=`), apart from
/// the integration feed's: at most `capacity` devices wait at once, and at most `share` of
/// one environment, so no company's devices can make another's wait for a place, nor take
/// its backend's. The rest are turned away at once rather than queued.
///
/// A device waits once: a device whose connection dropped mid-poll polls again at once, and
/// the server cannot see that the old request's client has gone. Its newer poll takes the
/// older one's place and ends the older one's wait, so abandoned polls never fill a share.
final class DeviceLongPolls: Sendable {
    let capacity: Int
    /// Devices of one environment that may wait at once.
    let share: Int
    private let state = Mutex(Waiting())

    /// `capacity` places split evenly between `environments` environments, as
    /// ``ConcurrencyGate`` splits its own.
    init(capacity: Int, environments: Int) {
        self.capacity = capacity
        share = ConcurrencyGate.share(of: capacity, between: environments)
    }

    /// Runs `body` holding the device's place, or returns nil without running it when the
    /// device has none and all places, or all of `environment`'s share, are taken. `body` is
    /// given the poll's own signal, which a newer poll of the device signals to end it.
    func withPlace<T>(device: String, environment: String, _ body: (ChangeSignal) async throws -> T) async rethrows -> T? {
        let ending = ChangeSignal()
        let (admitted, replaced) = state.withLock { waiting in
            waiting.admit(device: device, environment: environment, ending: ending, capacity: capacity, share: share)
        }
        replaced?.signal()
        guard admitted else { return nil }
        defer { state.withLock { $0.release(device: device, ending: ending) } }
        return try await body(ending)
    }

    private struct Waiting {
        /// Each waiting device's environment and the signal that ends its poll.
        var byDevice: [String: (environment: String, ending: ChangeSignal)] = [:]
        var byEnvironment: [String: Int] = [:]

        /// Whether the device gets a place, and the poll of the device that it replaces.
        mutating func admit(
            device: String, environment: String, ending: ChangeSignal, capacity: Int, share: Int
        ) -> (admitted: Bool, replaced: ChangeSignal?) {
            if let older = byDevice[device] {
                byDevice[device]?.ending = ending
                return (true, older.ending)
            }
            guard byDevice.count < capacity, byEnvironment[environment, default: 0] < share else { return (false, nil) }
            byDevice[device] = (environment, ending)
            byEnvironment[environment, default: 0] += 1
            return (true, nil)
        }

        /// Frees the device's place, unless a newer poll of the device holds it now.
        mutating func release(device: String, ending: ChangeSignal) {
            guard let held = byDevice[device], held.ending === ending else { return }
            byDevice[device] = nil
            byEnvironment.releasePlace(of: held.environment)
        }
    }
}
