import Foundation

/// When shifts start and end, decided once for both stores on facts read in the change's
/// transaction. A shift's tokens belong to a device record of its own (``ShiftRecord``), so
/// every end revokes that record (``DirectoryWrite/endShift(_:reason:actor:)``): its refresh tokens at once, its access tokens at `/me` and
/// `/introspect` on every instance, as a revoked device's.
package enum ShiftRules {
    /// A worker signed in on a shared device with the key it enrolled: `shift`, which the
    /// sign-in's tokens name, starts, and the one `open` on the device, if any, ends first
    /// (`next_worker`). `device` is the shared device as the transaction reads it in the
    /// sign-in's environment: one no longer enrolled since the tokens were signed makes the
    /// shift start and end at once (`unenrolled`), its tokens revoked, so that it is on record.
    package static func start(_ shift: ShiftRecord, device: SharedDeviceRecord?, open: ShiftRecord?) -> DirectoryPlan {
        var writes = open.map { end($0, .nextWorker, actor: systemActor).writes } ?? []
        writes += [.startShift(shift), .audit(.shiftStarted(shift))]
        if device?.state != .enrolled { writes += end(shift, .unenrolled, actor: systemActor).writes }
        return DirectoryPlan(writes)
    }

    /// The open `shift` ends for `reason`, with its tokens; one ended already (or none)
    /// changes nothing, also when another change ends it first (``DirectoryWrite/endShift(_:reason:actor:)``).
    package static func end(_ shift: ShiftRecord?, _ reason: ShiftEndReason, actor: String) -> DirectoryPlan {
        guard let shift, shift.isOpen else { return .unchanged }
        return DirectoryPlan([.endShift(shift, reason: reason, actor: actor)])
    }

    /// The worker signs out on the device: their shift ends (`signed_out`).
    package static func signOut(_ open: ShiftRecord) -> DirectoryPlan {
        end(open, .signedOut, actor: AuditRecord.userTarget(open.userID))
    }

    /// An admin, or the device's team's manager, ends the device's open shift: a device the
    /// caller does not look after is unknown to them.
    package static func endByAdmin(
        _ device: SharedDeviceRecord?, open: ShiftRecord?, callerTeams: Set<String>, by caller: DirectoryCaller
    ) throws(DirectoryError) -> DirectoryPlan {
        guard let device, DirectoryAuthority.looksAfter(device, callerTeams: callerTeams, caller) else { throw .unknownDevice }
        return end(open, .endedByAdmin, actor: caller.actor)
    }

    /// The refresh of a shift's token at `now`: the shift ends when it reached a limit, and
    /// the refresh is refused.
    package static func limit(
        _ shift: ShiftRecord, deviceLastSeenAt: Double?, limits: ShiftLimits, now: Double
    ) -> DirectoryPlan? {
        guard
            let reason = limits.reached(
                startedAt: shift.startedAt.timeIntervalSince1970, lastSeenAt: deviceLastSeenAt, now: now)
        else { return nil }
        return end(shift, reason, actor: systemActor)
    }

    /// The actor of ends nobody asked for: the next worker, a limit, an unenrolled device.
    package static let systemActor = "fieldpass"
}
