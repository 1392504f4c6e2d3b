import FieldpassDomain
import Foundation

/// The people SCIM lists, each change planned by ``ScimUserPlans`` under the person's lock.
extension TransactionalStore {
    public func scimUsers(
        environmentID: String, filter: (attribute: String, value: String)?, offset: Int, limit: Int
    ) async throws -> ScimPage<ScimUserRecord> {
        try await scimPage(.users(filter), environmentID: environmentID, offset: offset, limit: limit) { try ScimUserRecord(row: $1) }
    }

    public func scimUser(id: String, environmentID: String) async throws -> ScimUserRecord? {
        try await reading { transaction in try await transaction.scimUser(id: id, environmentID: environmentID) }
    }

    public func provisionScimUser(
        email: String, profile: ScimProfile, active: Bool, environmentID: String, actor: String, now: Date
    ) async throws -> ScimUserRecord {
        let record = try await writing { transaction in
            // Found locked, or created: of two requests for one new person, the second waits
            // here for the first to commit, and then finds them listed.
            let found = try await transaction.findOrCreateUser(email: email, environmentID: environmentID, now: now, actor: actor)
            // A person SCIM lists (all but those it removed) is a conflict; a removed one comes back.
            var listed = false
            if !found.created { listed = try await transaction.value(ScimStatements.isListed, found.id, as: Bool.self) == true }
            guard let user = try await transaction.user(id: found.id, environmentID: environmentID) else {
                throw DirectoryError.unknownUser
            }
            let plan = try ScimUserPlans.provision(
                user, created: found.created, listed: listed, profile: profile, active: active,
                devices: try await transaction.devices(of: user.id), actor: actor)
            try await transaction.apply(plan, environmentID: environmentID, now: now)
            return try await transaction.requireScimUser(id: user.id, environmentID: environmentID)
        }
        announce(.realms)
        await revocationsCaughtUp()
        return record
    }

    public func updateScimUser(
        id: String, environmentID: String, actor: String, now: Date,
        change: @escaping @Sendable (ScimUserRecord) throws -> ScimUserResource
    ) async throws -> ScimUserRecord {
        let record = try await writing { transaction in
            // Locked first: a concurrent change of this person waits, then reads what this one wrote.
            let old = try await transaction.lockScimUser(id: id, environmentID: environmentID)
            let new = try change(old)
            let holder = try await transaction.value(UserStatements.idByEmail, environmentID, new.userName, as: String.self)
            let plan = try ScimUserPlans.update(
                old, email: new.userName, holderOfEmail: holder, profile: new.profile, active: new.active,
                devices: try await transaction.devices(of: id), actor: actor)
            try await transaction.apply(plan, environmentID: environmentID, now: now)
            return try await transaction.requireScimUser(id: id, environmentID: environmentID)
        }
        await revocationsCaughtUp()
        return record
    }

    public func removeScimUser(id: String, environmentID: String, actor: String, now: Date) async throws {
        try await writing { transaction in
            let old = try await transaction.lockScimUser(id: id, environmentID: environmentID)
            let plan = try ScimUserPlans.remove(old, devices: try await transaction.devices(of: id), actor: actor)
            try await transaction.apply(plan, environmentID: environmentID, now: now)
        }
        await revocationsCaughtUp()
    }

    /// Whether SCIM provisioned the person (``ScimStatements/provisioned``) or the team is a SCIM group's.
    public func isScimManaged(userID: String?, teamID: String?, environmentID: String) async throws -> Bool {
        try await reading { transaction in
            if let userID, try await transaction.value(ScimStatements.provisioned, userID, environmentID, as: Bool.self) == true {
                return true
            }
            guard let teamID else { return false }
            return try await transaction.value(ScimStatements.teamIsGroup, teamID, environmentID, as: Bool.self) == true
        }
    }
}
