package import Foundation

/// Who may enroll, see and unenroll shared devices, and when an enrollment code works:
/// decided once for both stores, on facts read in the change's transaction. An admin looks
/// after every device; a manager those of the teams they are a member of; nobody else any.
package enum SharedDeviceRules {
    /// A new device awaiting enrollment. `teamExists` says whether its team (if it names
    /// one) is of the environment; `namesakes` are the environment's devices not unenrolled
    /// whose name is the new one's in any case; `callerTeams` are the calling person's teams.
    /// A name is taken while a device that has it is enrolled or its code still works, so
    /// that a form sent twice does not make two "Van 12"s; an unenrolled device, or one whose
    /// code expired unused, leaves its name free.
    package static func create(
        _ device: SharedDeviceRecord, codeHash: String, teamExists: Bool, namesakes: [SharedDeviceRecord],
        callerTeams: Set<String>, by caller: DirectoryCaller
    ) throws(DirectoryError) -> DirectoryPlan {
        if device.teamID != nil, !teamExists { throw .unknownTeam }
        guard DirectoryAuthority.looksAfter(device, callerTeams: callerTeams, caller) else { throw .notAllowed(.administer) }
        guard !namesakes.contains(where: { holdsName($0, at: device.createdAt) }) else { throw .sharedDeviceNameTaken }
        return DirectoryPlan([
            .createSharedDevice(device, codeHash: codeHash),
            .audit(.sharedDeviceCreated(actor: caller.actor, device: device)),
        ])
    }

    /// Whether `device` keeps its name from another device at `now`: enrolled, or awaiting
    /// enrollment with a code that still works.
    package static func holdsName(_ device: SharedDeviceRecord, at now: Date) -> Bool {
        switch device.state {
        case .enrolled: true
        case .awaitingEnrollment: now < device.enrollmentExpiresAt
        case .unenrolled: false
        }
    }

    /// Unenrolling: its key is refused from then on, and its `open` shift ends. A device the
    /// caller does not look after is unknown to them, as it is in their list; one unenrolled
    /// stays so.
    package static func unenroll(
        _ device: SharedDeviceRecord?, open: ShiftRecord?, callerTeams: Set<String>, by caller: DirectoryCaller
    ) throws(DirectoryError) -> DirectoryPlan {
        guard let device, DirectoryAuthority.looksAfter(device, callerTeams: callerTeams, caller) else { throw .unknownDevice }
        guard device.unenrolledAt == nil else { return .unchanged }
        return DirectoryPlan(
            ShiftRules.end(open, .unenrolled, actor: caller.actor).writes + [
                .unenrollSharedDevice(id: device.id),
                .audit(.sharedDeviceUnenrolled(actor: caller.actor, device: device)),
            ])
    }

    /// The device a key acts as: only an enrolled one. A key whose device was unenrolled, or
    /// that never finished enrolling, acts as no device: it ends no shift, hears no events and
    /// gets no PIN checked.
    package static func acting(_ device: SharedDeviceRecord?) -> SharedDeviceRecord? {
        guard let device, device.state == .enrolled else { return nil }
        return device
    }

    /// The device the code was issued for, enrolled with the key the device proved, and what
    /// that writes: a code works once, before it expires, for a device not unenrolled, and a
    /// key enrolls one device ever (`keyInUse`: some device has it already). `device` is the
    /// one whose code hash matched, if any. Every refusal is the same, so that nobody learns
    /// which codes exist.
    package static func enroll(
        _ device: SharedDeviceRecord?, keyThumbprint: String, keyInUse: Bool, now: Date
    ) throws(EnrollmentRefused) -> (enrolled: SharedDeviceRecord, plan: DirectoryPlan) {
        guard var device, device.state == .awaitingEnrollment, now < device.enrollmentExpiresAt, !keyInUse else {
            throw EnrollmentRefused()
        }
        let plan = DirectoryPlan([
            .enrollSharedDevice(id: device.id, keyThumbprint: keyThumbprint),
            .audit(.sharedDeviceEnrolled(device: device, keyThumbprint: keyThumbprint)),
        ])
        device.enrolledAt = now
        device.keyThumbprint = keyThumbprint
        return (device, plan)
    }
}

/// An enrollment code that is wrong, used, expired or of an unenrolled device, or a key that
/// is some device's already: all answered alike.
package struct EnrollmentRefused: Error, Equatable {
    package init() {}
}
