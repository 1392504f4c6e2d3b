package import Foundation

/// Reconciling what a shared device did offline, decided once for both stores on facts read
/// in the report's transaction, one entry after the other, each on what the one before wrote.
///
/// A permit counts only as issued: signed by Fieldpass, kept by it, for this device's key. Its
/// limits are judged at the shift's start on the device's clock, which may lag or run ahead
/// by `skew` at most: expired, its person disabled or its badge revoked or replaced before
/// the start, refused; a start or end later than now, refused. The wrong PINs typed for a
/// permit count toward its badge's lockout whether or not its shift is accepted, as online
/// tries do; the device reports them as a running total, so that a report sent twice counts
/// once. An accepted shift that started after the device's open online shift ends that one
/// (`next_worker`), as an online sign-in would have; a finished shift goes on record with its
/// times, the running one becomes the device's shift at once, with tokens (``amr``). A shift
/// reported again (same permit, same start) is answered as before and changes nothing.
package enum OfflineShiftRules {
    /// What one entry is decided on. `device` is the acting device whose key proved the
    /// report, locked; `open` its open shift; the rest as the transaction reads them for the
    /// entry's permit: the permit as kept, its person (with when they were disabled), their
    /// badge now, and the shift already recorded for this permit and start.
    package struct Facts: Sendable {
        package var device: SharedDeviceRecord
        package var open: ShiftRecord?
        package var permit: OfflinePermitRecord?
        package var person: UserRecord?
        package var personDisabledAt: Date?
        package var badge: BadgeRecord?
        package var recorded: ShiftRecord?

        package init(
            device: SharedDeviceRecord, open: ShiftRecord?, permit: OfflinePermitRecord?, person: UserRecord?, personDisabledAt: Date?,
            badge: BadgeRecord?, recorded: ShiftRecord?
        ) {
            self.device = device
            self.open = open
            self.permit = permit
            self.person = person
            self.personDisabledAt = personDisabledAt
            self.badge = badge
            self.recorded = recorded
        }
    }

    /// RFC 8176's `pin` and the badge, as online, and `offline`: the running shift's tokens say
    /// it began without Fieldpass.
    package static let amr = BadgeRules.amr + ["offline"]

    package static func reconcile(
        _ report: OfflineShiftReport, facts: Facts, running: RunningOfflineShift, keyThumbprint: String, maxFailedPins: Int,
        skew: TimeInterval,
        now: Date
    ) -> (result: OfflineShiftResult, plan: DirectoryPlan) {
        guard let claims = report.permit, let permit = facts.permit, permit.environmentID == facts.device.environmentID,
            permit.userID == claims.userID, permit.environmentID == claims.environmentID
        else { return (.refused(permitID: nil, .permitInvalid), .unchanged) }
        guard claims.keyThumbprint == keyThumbprint, permit.sharedDeviceID == facts.device.id else {
            return (.refused(permitID: permit.id, .notThisDevice), .unchanged)
        }
        var writes = pinFailures(report.failedPins, permit: permit, badge: facts.badge, maxFailedPins: maxFailedPins)
        guard let startedAt = report.startedAt else {
            return (.accepted(permitID: permit.id, shift: nil, new: false), DirectoryPlan(writes))
        }
        if let refusal = refusal(
            startedAt: startedAt, endedAt: report.endedAt, permit: permit, claims: claims, facts: facts, skew: skew, now: now)
        {
            return (.refused(permitID: permit.id, refusal), DirectoryPlan(writes))
        }
        if let recorded = facts.recorded { return (.accepted(permitID: permit.id, shift: recorded, new: false), DirectoryPlan(writes)) }
        guard let person = facts.person else { return (.refused(permitID: permit.id, .userDisabled), DirectoryPlan(writes)) }
        // The running shift would go on with tokens: only for a person and badge still good now.
        if report.isRunning, person.disabled { return (.refused(permitID: permit.id, .userDisabled), DirectoryPlan(writes)) }
        if report.isRunning, permit.withdrawnAt != nil { return (.refused(permitID: permit.id, .badgeRevoked), DirectoryPlan(writes)) }
        var shift = ShiftRecord(
            id: report.isRunning ? running.shiftID : UUID().uuidString.lowercased(), sharedDeviceID: facts.device.id, userID: person.id,
            email: person.email,
            startedAt: startedAt, amr: amr, offlinePermitID: permit.id)
        if let endedAt = report.endedAt {
            // The device ended its online shift when this one started.
            if let open = facts.open, open.startedAt < startedAt {
                writes += ShiftRules.end(open, .nextWorker, actor: ShiftRules.systemActor).writes
            }
            shift = shift.ended(.endedOffline, at: endedAt)
            writes.append(.recordOfflineShift(shift))
        } else {
            writes += [
                .createShiftDevice(id: shift.id, userID: person.id, name: facts.device.name),
                .issueRefreshToken(
                    RefreshTokenIssue(
                        hash: running.refreshTokenHash, userID: person.id, deviceID: shift.id,
                        expiresAt: running.refreshTokenExpiresAt.timeIntervalSince1970,
                        maxExpiresAt: running.refreshTokenMaxExpiresAt.timeIntervalSince1970, dpopThumbprint: keyThumbprint)),
            ]
            // It is the device's shift now: the open one, whenever it started, ends.
            writes += ShiftRules.start(shift, device: facts.device, open: facts.open).writes
        }
        return (.accepted(permitID: permit.id, shift: shift, new: true), DirectoryPlan(writes))
    }

    /// Why a shift started at `startedAt` may not have happened as reported, if it may not.
    private static func refusal(
        startedAt: Date, endedAt: Date?, permit: OfflinePermitRecord, claims: OfflineShiftReport.Permit, facts: Facts,
        skew: TimeInterval, now: Date
    ) -> OfflineShiftRefusal? {
        let latest = now.addingTimeInterval(skew)
        if startedAt > latest || (endedAt ?? startedAt) > latest || startedAt < permit.issuedAt.addingTimeInterval(-skew) {
            return .impossibleTime
        }
        if startedAt >= min(permit.expiresAt, claims.expiresAt) { return .expired }
        if facts.person == nil || facts.personDisabledAt.map({ $0 <= startedAt }) == true { return .userDisabled }
        if let withdrawnAt = permit.withdrawnAt, withdrawnAt <= startedAt { return .badgeRevoked }
        return nil
    }

    /// The wrong PINs reported beyond those counted already, counted toward the lockout of
    /// the badge the permit was issued at while the person still holds it; locking it is
    /// audited as online.
    private static func pinFailures(
        _ total: Int, permit: OfflinePermitRecord, badge: BadgeRecord?, maxFailedPins: Int
    ) -> [DirectoryWrite] {
        let added = total - permit.failedPinsCounted
        guard added > 0 else { return [] }
        var writes: [DirectoryWrite] = [.countOfflinePinFailures(permitID: permit.id, total: total)]
        guard let badge, badge.id == permit.badgeID, permit.withdrawnAt == nil else { return writes }
        let locks = badge.lockedAt == nil && badge.failedPins + added >= maxFailedPins
        writes.append(.recordPinFailures(badgeID: badge.id, count: added, locks: locks))
        if locks { writes.append(.audit(.badgeLocked(userID: permit.userID, badgeID: badge.id, deviceID: permit.sharedDeviceID))) }
        return writes
    }
}
