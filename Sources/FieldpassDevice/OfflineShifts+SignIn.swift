import Foundation

extension OfflineShifts {
    /// Checks `badge` and `pin` against the worker's kept permit, in the order that tells the
    /// worker the most and a thief the least: the permit (found, not locked, signed by Fieldpass,
    /// not expired, this device's), and only then the PIN, whose every wrong try is counted.
    /// The offline shift before ends, and the online shift's tokens are forgotten, as when the
    /// next worker signs in online.
    func signIn(badge: String, pin: String, now: Date) async throws -> OfflineShift {
        let thumbprint = try key.thumbprint
        return try await exclusively { records in
            let digest = BadgeDigest.of(badge)
            guard let index = records.permits.firstIndex(where: { $0.badgeDigest == digest }) else {
                throw OfflineSignInError.noPermit
            }
            let kept = records.permits[index]
            guard !kept.locked else { throw OfflineSignInError.locked }
            guard let permit = try? OfflinePermit(compact: kept.permit), records.keys?.verifies(permit) == true else {
                throw OfflineSignInError.invalidPermit
            }
            guard permit.expiresAt > now else { throw OfflineSignInError.expired }
            guard permit.claims.cnf.jkt == thumbprint else { throw OfflineSignInError.notThisDevice }
            guard kept.verifier.matches(badge: badge, pin: pin) else {
                records.permits[index].failedPins += 1
                records.permits[index].unreportedFailedPins += 1
                records.permits[index].failedPinsTotal += 1
                try store.save(records)
                throw OfflineSignInError.wrongPin(attemptsLeft: max(0, kept.maxFailedPins - records.permits[index].failedPins))
            }
            let shift = OfflineShift(
                permitID: permit.claims.jti, userID: permit.claims.sub, email: permit.claims.email, role: permit.claims.role,
                environment: permit.claims.env, realms: permit.claims.realms, startedAt: now)
            // Forgotten before the shift is saved: if that fails, nothing has started and the
            // worker tries again.
            try await client.forgetTokens()
            _ = records.endRunning(at: now)
            records.shifts.append(
                RecordedOfflineShift(
                    id: UUID().uuidString, permit: kept.permit, shift: shift, endedAt: nil, failedPins: kept.failedPinsTotal))
            records.permits[index].failedPins = 0
            records.permits[index].unreportedFailedPins = 0
            try store.save(records)
            return shift
        }
    }

}
