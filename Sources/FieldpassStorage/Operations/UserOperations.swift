public import FieldpassDomain
public import Foundation

/// People and their roles (``DirectoryRules``), and what a person may reach (``AccessFacts``).
extension TransactionalStore {
    public func users(environmentID: String) async throws -> [UserRecord] {
        try await reading { transaction in
            try await transaction.rows(UserStatements.inEnvironment, environmentID).map(UserRecord.init(row:))
        }
    }

    public func user(id: String, environmentID: String) async throws -> UserRecord? {
        try await reading { transaction in try await transaction.user(id: id, environmentID: environmentID) }
    }

    public func ensureUser(email: String, environmentID: String, actor: String, now: Date) async throws -> UserRecord {
        let user = try await writing { transaction in
            let id = try await transaction.findOrCreateUser(email: email, environmentID: environmentID, now: now, actor: actor).id
            guard let user = try await transaction.user(id: id, environmentID: environmentID) else { throw DirectoryError.unknownUser }
            return user
        }
        // The realm feed may have a new realm.
        announce(.realms)
        return user
    }

    public func setRole(
        _ role: Role, userID: String, by caller: DirectoryCaller, managed: ClaimMappings, now: Date
    ) async throws -> UserRecord {
        try await setRole(role, by: caller, managed: managed, now: now) { _, _ in userID }
    }

    public func setRole(
        _ role: Role, email: String, by caller: DirectoryCaller, managed: ClaimMappings, now: Date
    ) async throws -> UserRecord {
        let user = try await setRole(role, by: caller, managed: managed, now: now) { transaction, caller in
            try await transaction.findOrCreateUser(email: email, environmentID: caller.environmentID, now: now, actor: caller.actor).id
        }
        // The realm feed may have a new realm.
        announce(.realms)
        return user
    }

    /// PostgreSQL answers from memory when it can (see ``LiveRevocations``), and reads this way when it cannot.
    public func accessFacts(userID: String, environmentID: String) async throws -> AccessFacts? {
        try await reading { transaction in try await transaction.accessFacts(userID: userID, environmentID: environmentID) }
    }

    /// Gives the person `person` names `role`. Their row is locked, so that two changes of
    /// their role cannot both log the same "before"; whether the caller may change roles is
    /// checked when the person is known.
    private func setRole(
        _ role: Role, by caller: DirectoryCaller, managed: ClaimMappings, now: Date,
        person: @escaping @Sendable (Transaction, DirectoryCaller) async throws -> String
    ) async throws -> UserRecord {
        let user = try await writing { transaction in
            let caller = try await transaction.authorize(caller)
            let environmentID = caller.environmentID
            let user = try await transaction.user(id: try await person(transaction, caller), environmentID: environmentID, locking: true)
            if user != nil { try DirectoryAuthority.checkRoleChange(by: caller, managed: managed) }
            try await transaction.apply(
                try DirectoryRules.setRole(role, of: user, actor: caller.actor), environmentID: environmentID, now: now)
            guard var user else { throw DirectoryError.unknownUser }
            user.role = role
            return user
        }
        await revocationsCaughtUp()
        return user
    }
}
