public import FieldpassDomain
public import Foundation

/// A person's credentials as an admin changes them: their IdP account's binding and whether
/// they may sign in at all (``DirectoryRules``). Each change locks the person first.
extension TransactionalStore {
    public func resetIdentity(userID: String, by caller: DirectoryCaller, now: Date) async throws {
        let endedSignIns = try await writing { transaction in
            let caller = try await transaction.authorize(caller)
            let user = try await transaction.user(id: userID, environmentID: caller.environmentID, locking: true)
            let plan = try DirectoryRules.resetIdentity(
                of: user, devices: try await transaction.devices(of: userID), actor: caller.actor)
            return try await transaction.apply(plan, environmentID: caller.environmentID, now: now)
        }
        if endedSignIns { announce(.sessionEvents) }
        await revocationsCaughtUp()
    }

    public func setDisabled(_ disabled: Bool, userID: String, by caller: DirectoryCaller, now: Date) async throws -> UserRecord {
        let user = try await writing { transaction -> UserRecord in
            let caller = try await transaction.authorize(caller)
            let user = try await transaction.user(id: userID, environmentID: caller.environmentID, locking: true)
            if let user { try DirectoryAuthority.checkDisable(disabled, of: user, by: caller) }
            let plan = try DirectoryRules.setDisabled(
                disabled, of: user,
                provisionedByScim: try await transaction.value(ScimStatements.provisioned, userID, caller.environmentID, as: Bool.self)
                    ?? false,
                devices: try await transaction.devices(of: userID), actor: caller.actor)
            try await transaction.apply(plan, environmentID: caller.environmentID, now: now)
            guard var user else { throw DirectoryError.unknownUser }
            user.disabled = disabled
            return user
        }
        await revocationsCaughtUp()
        return user
    }
}
