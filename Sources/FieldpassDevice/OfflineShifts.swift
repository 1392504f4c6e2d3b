import Foundation

/// A shared device's offline shifts: the permits it keeps from online badge sign-ins, the
/// offline sign-ins checked against them, and the shifts it owes Fieldpass. One operation at a
/// time, network calls included, so that no count of wrong PINs, no shift and no answer is lost
/// between two of them: an offline sign-in waits for a reconciliation under way.
actor OfflineShifts {
    let store: any OfflineStore
    let key: any DPoPKey
    let pinHashing: ScryptParameters
    let http: FieldpassHTTP
    let client: FieldpassClient
    /// Whether an operation holds the records, and those waiting for them, first come first served.
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(store: any OfflineStore, key: any DPoPKey, pinHashing: ScryptParameters, http: FieldpassHTTP, client: FieldpassClient) {
        self.store = store
        self.key = key
        self.pinHashing = pinHashing
        self.http = http
        self.client = client
    }

    /// Runs `operation` alone, with the records as saved; it saves what it changes.
    func exclusively<T: Sendable>(_ operation: (inout OfflineRecords) async throws -> T) async throws -> T {
        while busy { await withCheckedContinuation { waiting.append($0) } }
        busy = true
        defer {
            busy = false
            if !waiting.isEmpty { waiting.removeFirst().resume() }
        }
        var records = try store.load() ?? OfflineRecords()
        return try await operation(&records)
    }

    /// The offline shift running on the device, if one is.
    nonisolated var running: OfflineShift? {
        get throws { try store.load()?.running?.shift }
    }

    /// Keeps `permit`, which an online badge sign-in with `badge` and `pin` answered, in place of
    /// the worker's permit before, with a new verifier of the PIN. `keys` are Fieldpass's when
    /// the caller has them; otherwise they are fetched if the permit's key is not among those kept.
    /// Throws ``OfflineSignInError/invalidPermit`` for what is not an offline permit.
    func keep(permit compact: String, badge: String, pin: String, keys: KeptKeySet?, now: Date) async throws {
        let permit = try OfflinePermit(compact: compact)
        let verifier = try PinVerifier(badge: badge, pin: pin, parameters: pinHashing)
        try await exclusively { records in
            if let keys {
                records.keys = keys
            } else if records.keys?.contains(kid: permit.header.kid) != true, let fetched = try? await fetchKeys(now: now) {
                records.keys = fetched
            }
            let badgeDigest = BadgeDigest.of(badge)
            let replaced = records.permits.filter { $0.badgeDigest == badgeDigest || $0.userID == permit.claims.sub }
            records.permits.removeAll { $0.badgeDigest == badgeDigest || $0.userID == permit.claims.sub }
            for old in replaced { records.owe(failedPinsOf: old) }
            records.permits.append(
                KeptPermit(
                    permit: compact, permitID: permit.claims.jti, userID: permit.claims.sub, expiresAt: permit.expiresAt,
                    badgeDigest: badgeDigest, verifier: verifier, maxFailedPins: permit.claims.max_failed_pins))
            try store.save(records)
        }
    }

    /// An online sign-in started a real shift: the offline one running, if any, ended then.
    func endRunning(at now: Date) async throws {
        try await exclusively { records in
            guard records.endRunning(at: now) else { return }
            try store.save(records)
        }
    }

    /// Fieldpass's JWKS, as published now.
    func fetchKeys(now: Date) async throws -> KeptKeySet {
        let (status, body) = try await http.get(http.url(".well-known/jwks.json"), timeout: 30)
        guard status == 200 else { throw FieldpassHTTP.failure(status: status, body: body) }
        guard let keys = KeptKeySet.decoding(body, fetchedAt: now) else { throw FieldpassClientError.unexpectedResponse(status: status) }
        return keys
    }
}
