package import Foundation

/// Badges for signing in on shared devices, decided once for both stores on facts read in the
/// change's transaction: who may issue, revoke and reset one (an admin; a manager revokes the
/// badges of his teams' workers, and issues and resets them only where the environment opted
/// in), and what a sign-in with one does.
///
/// Whoever makes a temporary PIN can start a shift as the worker with it, before the worker
/// does. So the badge remembers who made it (``BadgeRecord/pinIssuedBy``), and a shift started
/// with it says so: its tokens' `amr` has ``temporaryPinAMR``, and its audit entry names the
/// issuer (see `Docs/trust.md`).
package enum BadgeRules {
    /// Refuses a caller who may make no one's temporary PIN: a manager, unless his environment
    /// lets managers issue badges (`environments.<id>.badges.managers_issue`). An admin and the
    /// CLI may; whom a manager may, ``DirectoryAuthority/looksAfter(_:personTeams:callerTeams:_:)`` says.
    package static func checkMakesPins(_ caller: DirectoryCaller, managersIssue: Bool) throws(DirectoryError) {
        if let me = caller.person, me.role != .admin, !managersIssue { throw .notAllowed(.administer) }
    }

    /// A new badge for `person`, replacing theirs if they have one, its temporary PIN made by
    /// `caller`; the offline permits issued at the old one are withdrawn.
    package static func issue(
        _ badge: BadgeRecord, person: UserRecord?, personTeams: Set<String>, callerTeams: Set<String>, managersIssue: Bool,
        by caller: DirectoryCaller
    ) throws(DirectoryError) -> DirectoryPlan {
        try checkMakesPins(caller, managersIssue: managersIssue)
        guard let person, DirectoryAuthority.looksAfter(person, personTeams: personTeams, callerTeams: callerTeams, caller) else {
            throw .unknownUser
        }
        var badge = badge
        badge.pinTemporary = true
        badge.pinIssuedBy = caller.actor
        return DirectoryPlan([
            .saveBadge(badge), .withdrawOfflinePermits(userID: person.id),
            .audit(.badgeIssued(actor: caller.actor, userID: person.id, badgeID: badge.id)),
        ])
    }

    /// The person's badge revoked, and the offline permits issued at it withdrawn; none to
    /// revoke: `unknownBadge`.
    package static func revoke(
        _ badge: BadgeRecord?, person: UserRecord?, personTeams: Set<String>, callerTeams: Set<String>, by caller: DirectoryCaller
    ) throws(DirectoryError) -> DirectoryPlan {
        guard let person, DirectoryAuthority.looksAfter(person, personTeams: personTeams, callerTeams: callerTeams, caller) else {
            throw .unknownUser
        }
        guard let badge else { throw .unknownBadge }
        return DirectoryPlan([
            .deleteBadge(userID: badge.userID), .withdrawOfflinePermits(userID: badge.userID),
            .audit(.badgeRevoked(actor: caller.actor, userID: badge.userID, badgeID: badge.id)),
        ])
    }

    /// A new temporary PIN for the person's badge, made by `caller`, which unlocks it.
    package static func resetPin(
        _ badge: BadgeRecord?, pinHash: String, person: UserRecord?, personTeams: Set<String>, callerTeams: Set<String>,
        managersIssue: Bool, by caller: DirectoryCaller
    ) throws(DirectoryError) -> DirectoryPlan {
        try checkMakesPins(caller, managersIssue: managersIssue)
        guard let person, DirectoryAuthority.looksAfter(person, personTeams: personTeams, callerTeams: callerTeams, caller) else {
            throw .unknownUser
        }
        guard let badge else { throw .unknownBadge }
        return DirectoryPlan([
            .setBadgePin(badgeID: badge.id, pinHash: pinHash, temporary: true, issuedBy: caller.actor),
            .audit(.badgePinReset(actor: caller.actor, userID: badge.userID, badgeID: badge.id)),
        ])
    }

    /// A sign-in with a badge on a shared device: `badge` found by the attempt's hash, its
    /// person, the device whose key proved the request and its open shift, all as the
    /// transaction reads them. Refused alike when anything but the PIN is wrong, so that the
    /// answer tells a valid badge from an invalid one only by the lockout's count. A wrong PIN
    /// counts; the `max_failed_pins`-th locks the badge, audited. A right temporary PIN works
    /// only with a new one, and the shift it starts is marked as the issuer's word:
    /// ``temporaryPinAMR`` in its `amr`, the issuer in the shift and in its audit entry. A right
    /// PIN starts the shift as a sign-in at the IdP does (``ShiftRules/start(_:device:open:)``),
    /// with a device record and a refresh token bound to the device's key, and keeps the
    /// attempt's offline permit, if it has one, for the badge and the device.
    package static func signIn(
        _ attempt: BadgeAttempt, badge: BadgeRecord?, person: UserRecord?, device: SharedDeviceRecord?, open: ShiftRecord?, now: Date
    ) -> (outcome: BadgeOutcome, plan: DirectoryPlan) {
        guard let device = SharedDeviceRules.acting(device), let badge, badge.environmentID == device.environmentID, badge.isLive(at: now),
            let person, !person.disabled, person.environmentID == device.environmentID
        else { return (.refused, .unchanged) }
        let maxFailed = attempt.settings.maxFailedPins
        guard badge.lockedAt == nil, badge.failedPins < maxFailed else { return (.locked, .unchanged) }
        // Reset or changed since it was checked: the check says nothing of the PIN now.
        guard badge.pinHash == attempt.checkedPinHash else { return (.refused, .unchanged) }
        guard attempt.pinMatched else {
            let failures = badge.failedPins + 1
            let locks = failures >= maxFailed
            var writes: [DirectoryWrite] = [.recordPinFailures(badgeID: badge.id, count: 1, locks: locks)]
            if locks { writes.append(.audit(.badgeLocked(userID: person.id, badgeID: badge.id, deviceID: device.id))) }
            return (locks ? .locked : .wrongPin(attemptsLeft: maxFailed - failures), DirectoryPlan(writes))
        }
        if badge.pinTemporary, attempt.newPinHash == nil { return (.pinChangeRequired, .unchanged) }
        let issuer = badge.pinTemporary ? badge.pinIssuedBy ?? unknownIssuer : nil
        let shift = ShiftRecord(
            id: attempt.shiftID, sharedDeviceID: device.id, userID: person.id, email: person.email, startedAt: now,
            amr: issuer == nil ? amr : amr + [temporaryPinAMR], pinIssuedBy: issuer)
        let refreshToken = RefreshTokenIssue(
            hash: attempt.refreshTokenHash, userID: person.id, deviceID: attempt.shiftID,
            expiresAt: attempt.refreshTokenExpiresAt.timeIntervalSince1970,
            maxExpiresAt: attempt.refreshTokenMaxExpiresAt.timeIntervalSince1970, dpopThumbprint: attempt.proof.thumbprint
        )
        var writes: [DirectoryWrite] = [
            .setBadgePin(badgeID: badge.id, pinHash: attempt.newPinHash ?? badge.pinHash, temporary: false, issuedBy: nil),
            .createShiftDevice(id: attempt.shiftID, userID: person.id, name: device.name),
            .issueRefreshToken(refreshToken),
        ]
        writes += ShiftRules.start(shift, device: device, open: open).writes
        if let permit = attempt.offlinePermit {
            writes.append(
                .storeOfflinePermit(
                    OfflinePermitRecord(
                        id: permit.id, sharedDeviceID: device.id, environmentID: device.environmentID, userID: person.id,
                        badgeID: badge.id, issuedAt: now, expiresAt: permit.expiresAt)))
        }
        writes.append(.audit(.badgeSignIn(userID: person.id, badgeID: badge.id, deviceID: device.id, pinIssuedBy: issuer)))
        return (.signedIn(shift), DirectoryPlan(writes))
    }

    /// RFC 8176's `pin`, and the badge the person showed: what a badge shift's tokens say.
    package static let amr = ["pin", "badge"]

    /// What a shift's `amr` adds when it was started with a temporary PIN: someone else (the
    /// shift's ``ShiftRecord/pinIssuedBy``) knew the PIN it was started with.
    package static let temporaryPinAMR = "temporary_pin"

    /// The issuer named for a temporary PIN made before badges kept theirs.
    package static let unknownIssuer = "unknown"
}
