import Foundation

/// The audit entries of shared devices: enrolled by an admin or manager, enrolled by the
/// device itself, unenrolled.
extension AuditRecord {
    package static func sharedDeviceTarget(_ id: String) -> String { "shared_device:\(id)" }

    package static func sharedDeviceCreated(actor: String, device: SharedDeviceRecord) -> AuditRecord {
        var after = ["name": device.name]
        after["team_id"] = device.teamID
        return AuditRecord(actor: actor, action: "shared_device.create", target: sharedDeviceTarget(device.id), after: after)
    }

    package static func sharedDeviceEnrolled(device: SharedDeviceRecord, keyThumbprint: String) -> AuditRecord {
        AuditRecord(
            actor: sharedDeviceTarget(device.id), action: "shared_device.enroll", target: sharedDeviceTarget(device.id),
            after: ["key_thumbprint": keyThumbprint]
        )
    }

    package static func sharedDeviceUnenrolled(actor: String, device: SharedDeviceRecord) -> AuditRecord {
        AuditRecord(actor: actor, action: "shared_device.unenroll", target: sharedDeviceTarget(device.id), before: ["name": device.name])
    }
}

/// The audit entries of shifts on shared devices, which the lifecycle feed passes on. A shift
/// started offline says so, with the permit it started with and, since it is recorded later,
/// its own times (epoch seconds).
extension AuditRecord {
    package static func shiftStarted(_ shift: ShiftRecord) -> AuditRecord {
        AuditRecord(
            actor: userTarget(shift.userID), action: "shift.start", target: sharedDeviceTarget(shift.sharedDeviceID),
            after: shiftFields(shift)
        )
    }

    package static func shiftEnded(_ shift: ShiftRecord, reason: ShiftEndReason, actor: String) -> AuditRecord {
        var after = shiftFields(shift)
        after["reason"] = reason.rawValue
        if shift.offlinePermitID != nil, let endedAt = shift.endedAt { after["ended_at"] = String(Int(endedAt.timeIntervalSince1970)) }
        return AuditRecord(actor: actor, action: "shift.end", target: sharedDeviceTarget(shift.sharedDeviceID), after: after)
    }

    private static func shiftFields(_ shift: ShiftRecord) -> [String: String] {
        var fields = ["shift_id": shift.id, "user": shift.userID, "email": shift.email]
        if let permit = shift.offlinePermitID {
            fields["offline_permit"] = permit
            fields["started_at"] = String(Int(shift.startedAt.timeIntervalSince1970))
        }
        return fields
    }
}
