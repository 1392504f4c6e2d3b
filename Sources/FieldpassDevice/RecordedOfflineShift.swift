import Foundation

/// An entry a shared device owes Fieldpass (`POST /shared_devices/offline_shifts`): an offline
/// shift, ended or running, with the wrong PINs typed on its permit up to it, all told; or,
/// with no shift, wrong PINs alone that no shift followed. It leaves the device once Fieldpass has
/// answered for it.
struct RecordedOfflineShift: Codable, Sendable, Equatable {
    /// The device's own name for the entry, so that an answer removes the very entries it was for.
    let id: String
    let permit: String
    /// `nil` for wrong PINs alone.
    let shift: OfflineShift?
    var endedAt: Date?
    let failedPins: Int

    var running: Bool { shift != nil && endedAt == nil }

    /// The entry as Fieldpass takes it: times in epoch seconds, `null` where there is none.
    var report: [String: Any] {
        var entry: [String: Any] = ["permit": permit, "failed_pins": failedPins, "started_at": NSNull(), "ended_at": NSNull()]
        if let shift { entry["started_at"] = Int(shift.startedAt.timeIntervalSince1970) }
        if let endedAt { entry["ended_at"] = Int(endedAt.timeIntervalSince1970) }
        return entry
    }

    enum CodingKeys: String, CodingKey {
        case id, permit, shift
        case endedAt = "ended_at"
        case failedPins = "failed_pins"
    }
}
