import Foundation

/// Everything a shared device keeps for offline shifts, in one value that an ``OfflineStore``
/// saves whole: the workers' permits with their PIN verifiers and wrong-PIN counts, Fieldpass's
/// signing keys, and the offline shifts not yet reported. No badge, no PIN and no token is in
/// it: what a thief reads here lets him try PINs only with a worker's card in hand, a whole
/// scrypt each.
///
/// Its content is the library's; a store keeps its `Codable` form as it is.
public struct OfflineRecords: Codable, Sendable, Equatable {
    /// The form of the content, for a later library to read an older one.
    var version = 1
    var keys: KeptKeySet?
    var permits: [KeptPermit] = []
    /// Oldest first, as Fieldpass takes them.
    var shifts: [RecordedOfflineShift] = []

    init() {}

    /// The shift running on the device, if one is.
    var running: RecordedOfflineShift? {
        shifts.last(where: \.running)
    }

    /// Ends the running shift at `now`; `false` when none was running.
    mutating func endRunning(at now: Date) -> Bool {
        guard let index = shifts.lastIndex(where: \.running) else { return false }
        shifts[index].endedAt = now
        return true
    }

    /// Records the wrong PINs typed against `permit` and not yet reported, as an entry of their
    /// own: the permit is leaving the device (replaced, withdrawn), or the report is being made.
    mutating func owe(failedPinsOf permit: KeptPermit) {
        guard permit.unreportedFailedPins > 0 else { return }
        shifts.append(
            RecordedOfflineShift(
                id: UUID().uuidString, permit: permit.permit, shift: nil, endedAt: nil, failedPins: permit.failedPinsTotal))
    }
}
