public import FieldpassDomain
public import Foundation

/// Offline permits and the reconciliation of offline shifts, each entry decided by
/// ``OfflineShiftRules``. A report is one transaction: the people its permits name are locked
/// first (in id order, as every change to a person's devices and tokens starts), then the
/// device, so that two reports of one device, at any instances, decide one after the other,
/// the second on what the first recorded.
extension TransactionalStore {
    public func offlinePermits(keyThumbprint: String, now: Date) async throws -> [OfflinePermitRecord] {
        try await reading { transaction in
            guard let device = SharedDeviceRules.acting(try await transaction.sharedDevice(keyThumbprint: keyThumbprint)) else {
                throw DirectoryError.unknownDevice
            }
            let live = try await transaction.rows(OfflinePermitTables.liveOfDevice, device.id, now.timeIntervalSince1970)
                .map(OfflinePermitRecord.init(row:))
            return firstOfEachPerson(live, person: \.userID).reversed()
        }
    }

    public func offlinePermitHolders(deviceID: String, visibleTo caller: DirectoryCaller, now: Date) async throws -> [OfflinePermitHolder]?
    {
        try await reading { transaction in
            let caller = try await transaction.authorize(caller, .read)
            guard let device = try await transaction.sharedDevice(id: deviceID, environmentID: caller.environmentID),
                DirectoryAuthority.looksAfter(device, callerTeams: try await transaction.teams(of: caller), caller)
            else { return nil }
            let holders = try await transaction.rows(OfflinePermitTables.unexpiredOfDevice, device.id, now.timeIntervalSince1970)
                .map { OfflinePermitHolder(permit: try OfflinePermitRecord(row: $0), email: try $0.column("email")) }
            return firstOfEachPerson(holders, person: \.permit.userID)
        }
    }

    public func reconcileOfflineShifts(
        _ reports: [OfflineShiftReport], proof: DPoPRules.AcceptedProof, running: RunningOfflineShift, maxFailedPins: Int,
        skew: TimeInterval, now: Date
    ) async throws -> [OfflineShiftResult] {
        let results = try await writing { transaction -> [OfflineShiftResult] in
            try await transaction.takeProof(proof)
            guard let unlocked = SharedDeviceRules.acting(try await transaction.sharedDevice(keyThumbprint: proof.thumbprint)) else {
                throw DirectoryError.unknownDevice
            }
            let named = Set(reports.compactMap(\.permit).map(\.userID)).sorted()
            var people: [String: (person: UserRecord, disabledAt: Date?)] = [:]
            if !named.isEmpty {
                for row in try await transaction.rows(ScimStatements.people, named, unlocked.environmentID, locking: .users) {
                    let person = try UserRecord(row: row)
                    people[person.id] = (person, try row.column("disabled_at", as: Double?.self).map(Date.init(timeIntervalSince1970:)))
                }
            }
            guard let device = SharedDeviceRules.acting(try await transaction.sharedDevice(keyThumbprint: proof.thumbprint, locking: true))
            else { throw DirectoryError.unknownDevice }
            var results: [OfflineShiftResult] = []
            for report in reports {
                let facts = try await transaction.offlineShiftFacts(report, device: device, people: people)
                let decision = OfflineShiftRules.reconcile(
                    report, facts: facts, running: running, keyThumbprint: proof.thumbprint, maxFailedPins: maxFailedPins, skew: skew,
                    now: now)
                try await transaction.apply(decision.plan, environmentID: device.environmentID, now: now)
                results.append(decision.result)
            }
            return results
        }
        await revocationsCaughtUp()
        return results
    }
}

extension StoreTransaction {
    /// What one entry of a report is decided on, as this transaction reads it after the
    /// entries before it wrote.
    fileprivate func offlineShiftFacts(
        _ report: OfflineShiftReport, device: SharedDeviceRecord, people: [String: (person: UserRecord, disabledAt: Date?)]
    ) async throws -> OfflineShiftRules.Facts {
        var facts = OfflineShiftRules.Facts(
            device: device, open: try await openShift(deviceID: device.id), permit: nil, person: nil, personDisabledAt: nil, badge: nil,
            recorded: nil)
        guard let claims = report.permit else { return facts }
        facts.permit = try await first(OfflinePermitTables.one, claims.id).map(OfflinePermitRecord.init(row:))
        guard let permit = facts.permit else { return facts }
        (facts.person, facts.personDisabledAt) = (people[permit.userID]?.person, people[permit.userID]?.disabledAt)
        facts.badge = try await first(BadgeTables.ofPerson, permit.userID).map(BadgeRecord.init(row:))
        if let startedAt = report.startedAt {
            facts.recorded = try await first(OfflinePermitTables.recordedShift, permit.id, startedAt.timeIntervalSince1970)
                .map(ShiftRecord.init(row:))
        }
        return facts
    }
}

/// The first of each person's permits in `permits`, in their order: each person's latest, for
/// permits read latest first.
private func firstOfEachPerson<Permit>(_ permits: [Permit], person: KeyPath<Permit, String>) -> [Permit] {
    var seen: Set<String> = []
    return permits.filter { seen.insert($0[keyPath: person]).inserted }
}
