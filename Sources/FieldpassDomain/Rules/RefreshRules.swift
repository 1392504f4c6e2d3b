/// Refreshing (RFC 9700 4.14.2): an honoured token rotates once; its device may retry it
/// within the grace and gets the same successor back; any other return of a rotated token
/// means someone holds a copy, and the device is cut off.
package enum RefreshRules {
    /// A refresh token's row with the standing of its user and device.
    package struct Token: Sendable, Equatable {
        package var grant: RefreshGrant
        package var createdAt: Double
        package var expiresAt: Double
        package var maxExpiresAt: Double
        package var revokedAt: Double?
        package var rotatedAt: Double?
        package var successorHash: String?
        package var successorSealed: [UInt8]?
        package var userDisabledAt: Double?
        package var deviceRevokedAt: Double?
        /// The device's last registration, sign-in or refresh.
        package var deviceLastSeenAt: Double?

        package init(
            grant: RefreshGrant, createdAt: Double, expiresAt: Double, maxExpiresAt: Double, revokedAt: Double? = nil,
            rotatedAt: Double? = nil, successorHash: String? = nil, successorSealed: [UInt8]? = nil, userDisabledAt: Double? = nil,
            deviceRevokedAt: Double? = nil, deviceLastSeenAt: Double? = nil
        ) {
            self.grant = grant
            self.createdAt = createdAt
            self.expiresAt = expiresAt
            self.maxExpiresAt = maxExpiresAt
            self.revokedAt = revokedAt
            self.rotatedAt = rotatedAt
            self.successorHash = successorHash
            self.successorSealed = successorSealed
            self.userDisabledAt = userDisabledAt
            self.deviceRevokedAt = deviceRevokedAt
            self.deviceLastSeenAt = deviceLastSeenAt
        }

        /// Not revoked, unexpired, and its device and user still in good standing.
        package func isHonoured(now: Double) -> Bool {
            revokedAt == nil && deviceRevokedAt == nil && userDisabledAt == nil && expiresAt > now
        }

        /// The device's current token: honoured and not rotated yet.
        package func isLive(now: Double) -> Bool {
            isHonoured(now: now) && rotatedAt == nil
        }
    }

    /// What the store writes for a refresh, in the transaction that read the token, and what
    /// it answers.
    package struct Decision: Sendable, Equatable {
        package var plan: DirectoryPlan
        package var outcome: RefreshOutcome

        package init(_ plan: DirectoryPlan = .unchanged, outcome: RefreshOutcome) {
            self.plan = plan
            self.outcome = outcome
        }
    }

    /// Whether the decision depends on the successor still being unrotated, which the store
    /// then reads (under the same lock): only for a retry within the grace.
    package static func needsSuccessorLookup(_ token: Token, grace: Int, now: Double) -> Bool {
        guard token.isHonoured(now: now), let rotatedAt = token.rotatedAt else { return false }
        return now - rotatedAt <= Double(grace) && token.successorSealed != nil && token.successorHash != nil
    }

    /// The decision for a known `token` (an unknown one is refused); `successor` is what the
    /// lookup found, nil when none was needed. Revoked, expired, or its person or
    /// device no longer in good standing: refused, nothing written. A retry within the grace:
    /// the successor already stored, unsealed for the device again, unless it was revoked since
    /// (the installation signed in anew): refused, nothing written. A rotation: the token
    /// marked rotated, the successor stored until the earlier of the rotation's lifetime and
    /// the sign-in's end, the device seen, and the day's first refresh audited
    /// (``DeviceActivityAudit``). A reuse: the device (and its tokens) revoked, audited, refused;
    /// a shift's ends with it (`token_reused`).
    /// A token bound to a key is judged only with that key's proof: without it, nothing is
    /// written, so a copy's use is neither a rotation nor a reuse (RFC 9449 §5). The token of a
    /// shift past its limit (``ShiftLimits``) is refused, and the shift ends.
    package static func decide(_ token: Token, successor: Token?, rotation: RefreshRotation, now: Double) -> Decision {
        if let bound = token.grant.dpopThumbprint, rotation.provenThumbprint != bound { return Decision(outcome: .proofRequired) }
        guard token.isHonoured(now: now) else { return Decision(outcome: .refused) }
        if let shift = token.grant.shift,
            let ended = ShiftRules.limit(shift, deviceLastSeenAt: token.deviceLastSeenAt, limits: rotation.shiftLimits, now: now)
        {
            return Decision(ended, outcome: .refused)
        }
        guard token.rotatedAt != nil else {
            let successor = RefreshTokenIssue(
                hash: rotation.newHash, userID: token.grant.userID, deviceID: token.grant.deviceID,
                expiresAt: min(now + Double(rotation.ttl), token.maxExpiresAt), maxExpiresAt: token.maxExpiresAt,
                replacedHash: rotation.oldHash, sealedSuccessor: rotation.sealedSuccessor,
                dpopThumbprint: token.grant.dpopThumbprint
            )
            let audit = DeviceActivityAudit.refresh(token.grant, lastSeenAt: token.deviceLastSeenAt, now: now)
            return Decision(
                DirectoryPlan([.issueRefreshToken(successor)] + (audit.map { [.audit($0)] } ?? [])), outcome: .rotated(token.grant))
        }
        if needsSuccessorLookup(token, grace: rotation.grace, now: now), let successor, successor.rotatedAt == nil,
            let sealed = token.successorSealed
        {
            guard successor.isHonoured(now: now) else { return Decision(outcome: .refused) }
            return Decision(outcome: .retried(token.grant, sealedSuccessor: sealed))
        }
        let plan = cutOff(token, .deviceRevokedOnReuse(token.grant)) { ShiftRules.end($0, .tokenReused, actor: ShiftRules.systemActor) }
        return Decision(plan, outcome: .refused)
    }

    /// Revoking a refresh token (RFC 7009) signs its device out, and ends its shift on a shared
    /// device (`signed_out`); a device signed out already changes nothing, and neither does a
    /// token bound to a key without that key's proof.
    package static func revocation(_ token: Token, provenThumbprint: String?) -> (plan: DirectoryPlan, outcome: RefreshRevocation) {
        if let bound = token.grant.dpopThumbprint, provenThumbprint != bound { return (.unchanged, .proofRequired) }
        guard token.deviceRevokedAt == nil else { return (.unchanged, .revoked) }
        return (cutOff(token, .deviceRevokedByItsToken(token.grant), endingShift: ShiftRules.signOut), .revoked)
    }

    /// The token's device revoked for good, with its tokens, and why. A shift's device is
    /// revoked by ending the shift as `endingShift` has it, so that the shared device's apps
    /// hear it.
    private static func cutOff(
        _ token: Token, _ entry: AuditRecord, endingShift: (ShiftRecord) -> DirectoryPlan
    ) -> DirectoryPlan {
        guard let shift = token.grant.shift, shift.isOpen else {
            return DirectoryPlan([.revokeDevice(id: token.grant.deviceID), .audit(entry)])
        }
        return DirectoryPlan(endingShift(shift).writes + [.audit(entry)])
    }
}
