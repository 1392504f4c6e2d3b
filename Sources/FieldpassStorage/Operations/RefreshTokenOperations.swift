public import FieldpassDomain
public import Foundation

/// Refresh tokens, rotated and revoked as ``RefreshRules`` decides. A change to a token locks
/// its user, then the token (``StoreTransaction/lockRefreshToken(hash:)``): concurrent
/// refreshes of one token, on any instance, queue on its lock, and each then reads what the
/// one before committed, so exactly one rotates and the others retry or count as a reuse.
extension TransactionalStore {
    public func rotateRefreshToken(_ rotation: RefreshRotation, now: Date) async throws -> RefreshOutcome {
        let (outcome, endedShift) = try await writingGrouped(announcing: nil) { transaction -> (RefreshOutcome, Bool) in
            let timestamp = now.timeIntervalSince1970
            try await transaction.takeProof(rotation.proof)
            guard let token = try await transaction.lockRefreshToken(hash: rotation.oldHash) else { return (.refused, false) }
            var successor: RefreshRules.Token?
            if RefreshRules.needsSuccessorLookup(token, grace: rotation.grace, now: timestamp), let hash = token.successorHash {
                successor = try await transaction.refreshToken(hash: hash)
            }
            let decision = RefreshRules.decide(token, successor: successor, rotation: rotation, now: timestamp)
            try await transaction.apply(decision.plan, environmentID: token.grant.environmentID, now: now)
            return (decision.outcome, decision.plan.writes.contains { if case .endShift = $0 { true } else { false } })
        }
        // A shift past its limit ended: its access tokens count as revoked here once this is answered.
        if endedShift { await revocationsCaughtUp() }
        return outcome
    }

    public func liveRefreshToken(hash: String, now: Date) async throws -> LiveRefreshToken? {
        try await reading { transaction in
            guard let token = try await transaction.refreshToken(hash: hash), token.isLive(now: now.timeIntervalSince1970) else {
                return nil
            }
            return LiveRefreshToken(
                grant: token.grant, issuedAt: Date(timeIntervalSince1970: token.createdAt),
                expiresAt: Date(timeIntervalSince1970: token.expiresAt))
        }
    }

    /// Locked like a rotation: two revocations at once revoke and audit once.
    public func revokeRefreshToken(hash: String, proof: DPoPRules.AcceptedProof?, now: Date) async throws -> RefreshRevocation {
        let outcome = try await writing { transaction -> RefreshRevocation in
            try await transaction.takeProof(proof)
            guard let token = try await transaction.lockRefreshToken(hash: hash) else { return .unknown }
            let revocation = RefreshRules.revocation(token, provenThumbprint: proof?.thumbprint)
            try await transaction.apply(revocation.plan, environmentID: token.grant.environmentID, now: now)
            return revocation.outcome
        }
        await revocationsCaughtUp()
        return outcome
    }
}
