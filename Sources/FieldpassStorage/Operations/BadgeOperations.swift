public import FieldpassDomain
public import Foundation

/// Badges and the sign-ins made with them, each change planned by ``BadgeRules``. The
/// person's lock comes first, as in every change to a person's devices and tokens, then the
/// badge's and the device's: two sign-ins with one badge, at any instances, decide one after
/// the other, so that no more than `badges.max_failed_pins` wrong PINs are ever tried.
extension TransactionalStore {
    public func issueBadge(_ badge: BadgeRecord, managersIssue: Bool, by caller: DirectoryCaller, now: Date) async throws {
        try await writing { transaction in
            let facts = try await transaction.badgeFacts(userID: badge.userID, caller)
            let plan = try BadgeRules.issue(
                badge, person: facts.person, personTeams: facts.personTeams, callerTeams: facts.callerTeams,
                managersIssue: managersIssue, by: facts.caller)
            try await transaction.apply(plan, environmentID: facts.caller.environmentID, now: now)
        }
    }

    public func revokeBadge(userID: String, by caller: DirectoryCaller, now: Date) async throws {
        try await writing { transaction in
            let facts = try await transaction.badgeFacts(userID: userID, caller)
            let plan = try BadgeRules.revoke(
                facts.badge, person: facts.person, personTeams: facts.personTeams, callerTeams: facts.callerTeams, by: facts.caller)
            try await transaction.apply(plan, environmentID: facts.caller.environmentID, now: now)
        }
    }

    public func resetBadgePin(userID: String, pinHash: String, managersIssue: Bool, by caller: DirectoryCaller, now: Date) async throws {
        try await writing { transaction in
            let facts = try await transaction.badgeFacts(userID: userID, caller)
            let plan = try BadgeRules.resetPin(
                facts.badge, pinHash: pinHash, person: facts.person, personTeams: facts.personTeams, callerTeams: facts.callerTeams,
                managersIssue: managersIssue, by: facts.caller)
            try await transaction.apply(plan, environmentID: facts.caller.environmentID, now: now)
        }
    }

    public func badge(userID: String, environmentID: String) async throws -> BadgeRecord? {
        try await reading { transaction in
            try await transaction.first(BadgeTables.ofPerson, userID).map(BadgeRecord.init(row:))
                .flatMap { $0.environmentID == environmentID ? $0 : nil }
        }
    }

    public func badge(hash: String) async throws -> BadgeRecord? {
        try await reading { transaction in try await transaction.badge(hash: hash) }
    }

    public func signInWithBadge(_ attempt: BadgeAttempt, now: Date) async throws -> BadgeOutcome {
        let outcome = try await writing { transaction -> BadgeOutcome in
            try await transaction.takeProof(attempt.proof)
            try await transaction.lock(.users, by: BadgeTables.holder, attempt.badgeHash)
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

extension StoreTransaction {
    /// What an admin's change of a person's badge is decided on: the caller as the
    /// transaction reads them, the person (of the caller's environment, locked), their teams,
    /// the caller's teams and the person's badge.
    fileprivate func badgeFacts(
        userID: String, _ caller: DirectoryCaller
    ) async throws -> (
        caller: DirectoryCaller, person: UserRecord?, personTeams: Set<String>, callerTeams: Set<String>, badge: BadgeRecord?
    ) {
        let caller = try await authorize(caller, .read)
        let person = try await user(id: userID, environmentID: caller.environmentID, locking: true)
        return (
            caller, person, try await teams(of: userID), try await teams(of: caller),
            try await first(BadgeTables.ofPerson, userID).map(BadgeRecord.init(row:))
        )
    }
}
