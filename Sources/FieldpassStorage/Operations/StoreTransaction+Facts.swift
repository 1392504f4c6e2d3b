import FieldpassDomain
import Foundation

/// The facts operations read, each read one way for both stores; a fact read to decide on
/// it is read under its row's lock (``LockedTable``).
extension StoreTransaction {
    func user(id: String, environmentID: String, locking: Bool = false) async throws -> UserRecord? {
        try await first(UserStatements.user, id, environmentID, locking: locking ? .users : nil).map(UserRecord.init(row:))
    }

    /// The caller as this transaction reads them (``DirectoryAuthority/authorize(_:current:_:)``).
    func authorize(_ caller: DirectoryCaller, _ action: DirectoryAction = .administer) async throws -> DirectoryCaller {
        var current: UserRecord?
        if let person = caller.person { current = try await user(id: person.id, environmentID: caller.environmentID) }
        return try DirectoryAuthority.authorize(caller, current: current, action)
    }

    /// The person's teams.
    func teams(of userID: String) async throws -> Set<String> {
        Set(try await values(SharedDeviceTables.teamsOf, userID, as: String.self))
    }

    /// The calling person's teams; none for callers who are no person.
    func teams(of caller: DirectoryCaller) async throws -> Set<String> {
        guard let person = caller.person else { return [] }
        return try await teams(of: person.id)
    }

    func sharedDevice(id: String, environmentID: String, locking: Bool = false) async throws -> SharedDeviceRecord? {
        try await first(SharedDeviceTables.one, id, environmentID, locking: locking ? .sharedDevices : nil).map(
            SharedDeviceRecord.init(row:))
    }

    func sharedDevice(keyThumbprint: String, locking: Bool = false) async throws -> SharedDeviceRecord? {
        try await first(SharedDeviceTables.byKey, keyThumbprint, locking: locking ? .sharedDevices : nil).map(SharedDeviceRecord.init(row:))
    }

    /// The device's open shift. Callers that change it hold the device's lock.
    func openShift(deviceID: String) async throws -> ShiftRecord? {
        try await first(ShiftTables.open, deviceID).map(ShiftRecord.init(row:))
    }

    /// The person's devices not revoked yet and open shifts. Callers hold the person's lock,
    /// so none can be added, revoked or ended meanwhile.
    func devices(of userID: String) async throws -> PersonDevices {
        PersonDevices(
            live: try await values(DeviceStatements.live, userID, as: String.self),
            openShifts: try await rows(ShiftTables.openOfPerson, userID).map(ShiftRecord.init(row:)))
    }

    func badge(hash: String, locking: Bool = false) async throws -> BadgeRecord? {
        try await first(BadgeTables.byHash, hash, locking: locking ? .badges : nil).map(BadgeRecord.init(row:))
    }

    /// Records the use of `proof`, if there is one; one used before is refused, which rolls
    /// the transaction back.
    func takeProof(_ proof: DPoPRules.AcceptedProof?) async throws {
        guard let proof else { return }
        guard try await first(DPoPTables.recordProof, proof.replayKey, proof.rememberUntil.timeIntervalSince1970) != nil else {
            throw DPoPRefusal.usedBefore
        }
    }
}
