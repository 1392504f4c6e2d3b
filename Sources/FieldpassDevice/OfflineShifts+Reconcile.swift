import Foundation

extension OfflineShifts {
    /// One entry of Fieldpass's answer to `POST /shared_devices/offline_shifts`.
    private struct Result: Decodable {
        var status: String
        var reason: String?
        var shift_id: String?
        var access_token: String?
        var refresh_token: String?
        var expires_in: Int?
    }

    /// Reports every offline shift, and the wrong PINs no shift followed, in the order they
    /// happened. Entries leave the device only once Fieldpass has answered for them: a lost
    /// answer is asked for again, and Fieldpass answers the same (tokens excepted: only once).
    func reconcile() async throws -> OfflineReconciliation {
        try await exclusively { records in
            for index in records.permits.indices {
                records.owe(failedPinsOf: records.permits[index])
                records.permits[index].unreportedFailedPins = 0
            }
            // A worker who signed in online since (by email: the device holds tokens again, which
            // an offline sign-in forgets) ended the running shift, at the latest now.
            if records.running != nil, try await client.holdsTokens() { _ = records.endRunning(at: Date()) }
            try store.save(records)
            let sent = records.shifts
            guard !sent.isEmpty else { return OfflineReconciliation(shifts: []) }
            let (status, body) = try await http.postJSON("shared_devices/offline_shifts", ["shifts": sent.map(\.report)])
            guard status == 200 else { throw try await deviceRefusal(status: status, body: body, records: &records) }
            struct Answer: Decodable { var results: [Result] }
            guard let answer = try? JSONDecoder().decode(Answer.self, from: body), answer.results.count == sent.count else {
                throw FieldpassClientError.unexpectedResponse(status: status)
            }
            var reconciled: [ReconciledOfflineShift] = []
            var tokens: TokenSet?
            for (entry, result) in zip(sent, answer.results) {
                guard let shift = entry.shift else { continue }
                let verdict: ReconciledOfflineShift.Verdict
                switch (result.status, result.shift_id) {
                case ("accepted", let shiftID?): verdict = .accepted(shiftID: shiftID)
                case ("refused", _): verdict = .refused(OfflineShiftRefusal(reason: result.reason))
                default: throw FieldpassClientError.unexpectedResponse(status: status)
                }
                if entry.running, case .accepted = verdict, let access = result.access_token, let refresh = result.refresh_token,
                    let expiresIn = result.expires_in
                {
                    tokens = TokenSet(
                        accessToken: access, refreshToken: refresh, expiresAt: Date().addingTimeInterval(TimeInterval(expiresIn)))
                }
                reconciled.append(
                    ReconciledOfflineShift(
                        shift: shift, verdict: verdict, wasRunning: entry.running, tokensAdopted: entry.running && tokens != nil))
            }
            // Delivered: Fieldpass has them all. A refused running shift ends here with the rest.
            let answered = Set(sent.map(\.id))
            records.shifts.removeAll { answered.contains($0.id) }
            try store.save(records)
            // The running shift is now a real one, whose tokens Fieldpass answered this once;
            // adopted before any offline sign-in can forget them.
            if let tokens { try await client.adopt(tokens) }
            return OfflineReconciliation(shifts: reconciled)
        }
    }

    /// The error of a refused call on the device's own routes. Once Fieldpass no longer knows the
    /// device (unenrolled), its permits are worth nothing and nothing owed can be delivered:
    /// the records are cleared, so no offline sign-in goes on on a device that is out.
    func deviceRefusal(status: Int, body: Data, records: inout OfflineRecords) async throws -> FieldpassClientError {
        let failure = try await SharedDevice.deviceFailure(status: status, body: body, client: client)
        if failure == .notEnrolled {
            records = OfflineRecords()
            try store.save(records)
        }
        return failure
    }

    /// Keeps the permits Fieldpass still lists for the device (`GET /shared_devices/offline_permits`)
    /// and drops the others, withdrawn (a badge revoked, a person disabled), after reporting
    /// what was typed against them; and refreshes Fieldpass's keys.
    func refreshPermits() async throws {
        let keys = try await fetchKeys(now: Date())
        try await exclusively { records in
            let (status, body) = try await http.proven("GET", http.url("shared_devices/offline_permits"))
            guard status == 200 else { throw try await deviceRefusal(status: status, body: body, records: &records) }
            struct Listing: Decodable {
                struct Entry: Decodable { var permit: String }
                var permits: [Entry]
            }
            guard let listing = try? JSONDecoder().decode(Listing.self, from: body) else {
                throw FieldpassClientError.unexpectedResponse(status: status)
            }
            let live = Set(listing.permits.compactMap { try? OfflinePermit(compact: $0.permit).claims.jti })
            for withdrawn in records.permits where !live.contains(withdrawn.permitID) { records.owe(failedPinsOf: withdrawn) }
            records.permits.removeAll { !live.contains($0.permitID) }
            records.keys = keys
            try store.save(records)
        }
    }
}
