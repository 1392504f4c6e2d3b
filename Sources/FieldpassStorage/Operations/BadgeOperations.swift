public import FieldpassDomain
public import Foundation

/// Badges and the sign-ins made with them (``BadgeRules``).
extension TransactionalStore {
    /// Locks the badge's person, the badge, then the device (``LockedTable``'s order): one
    /// person's sign-ins, PIN failures and resets decide one after the other.
    public func signInWithBadge(_ attempt: BadgeAttempt, now: Date) async throws -> BadgeOutcome {
        let outcome = try await writing { transaction -> BadgeOutcome in
            try await transaction.takeProof(attempt.proof)
            _ = try await transaction.first(BadgeTables.holder, attempt.badgeHash, locking: .users)
            let badge = try await transaction.badge(hash: attempt.badgeHash, locking: true)
            let device = try await transaction.sharedDevice(keyThumbprint: attempt.proof.thumbprint, locking: true)
            var person: UserRecord?
            if let badge { person = try await transaction.user(id: badge.userID, environmentID: badge.environmentID) }
            var open: ShiftRecord?
            if let device { open = try await transaction.openShift(deviceID: device.id) }
            let decision = BadgeRules.signIn(attempt, badge: badge, person: person, device: device, open: open, now: now)
            if let environmentID = device?.environmentID {
                try await transaction.apply(decision.plan, environmentID: environmentID, now: now)
            }
            return decision.outcome
        }
        if case .signedIn = outcome { await revocationsCaughtUp() }
        return outcome
    }
}
