public import FieldpassDomain
public import Foundation

/// A person's devices: listed, and signed out (``DirectoryAuthority/authorizeDeviceSignOut(_:current:userID:)``,
/// ``DirectoryRules/revokeDevice(id:_:openShift:userKnown:userID:byThemselves:actor:)``).
extension TransactionalStore {
    public func devices(userID: String, environmentID: String) async throws -> [DeviceRecord] {
        try await reading { transaction in
            guard try await transaction.user(id: userID, environmentID: environmentID) != nil else { throw DirectoryError.unknownUser }
            return try await transaction.rows(DeviceStatements.devices, userID).map(DeviceRecord.init(row:))
        }
    }

    public func revokeDevice(id: String, userID: String, by caller: DirectoryCaller, now: Date) async throws {
        try await writing { transaction in
            var current: UserRecord?
            if let person = caller.person { current = try await transaction.user(id: person.id, environmentID: caller.environmentID) }
            let (caller, byThemselves) = try DirectoryAuthority.authorizeDeviceSignOut(caller, current: current, userID: userID)
            // The user lock makes the "not revoked yet" check and its audit entry happen once.
            let user = try await transaction.user(id: userID, environmentID: caller.environmentID, locking: true)
            let device = try await transaction.first(DeviceStatements.device, id, userID).map {
                (name: try $0.column("name", as: String.self), revoked: try $0.column("revoked_at", as: Double?.self) != nil)
            }
            let openShift = try await transaction.first(ShiftTables.openWithID, id).map(ShiftRecord.init(row:))
            let plan = try DirectoryRules.revokeDevice(
                id: id, device, openShift: openShift, userKnown: user != nil, userID: userID, byThemselves: byThemselves,
                actor: caller.actor)
            try await transaction.apply(plan, environmentID: caller.environmentID, now: now)
        }
        await revocationsCaughtUp()
    }
}
