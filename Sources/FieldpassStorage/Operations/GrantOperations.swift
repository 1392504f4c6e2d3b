public import FieldpassDomain
public import Foundation

/// Explicit grants of realms (``GrantRules``).
extension TransactionalStore {
    public func changeGrant(
        _ access: RealmAccess?, realmPath: String, userID: String, by caller: DirectoryCaller, now: Date
    ) async throws -> AccessFacts {
        let facts = try await writing { transaction in
            let caller = try await transaction.authorize(caller)
            let environmentID = caller.environmentID
            // Locks the person: the previous grant read below stays theirs until commit, so a
            // concurrent change of the same grant cannot log the same "before" twice.
            let facts =
                try await transaction.user(id: userID, environmentID: environmentID, locking: true) == nil
                ? nil : try await transaction.accessFacts(userID: userID, environmentID: environmentID)
            var ownerKnown = true
            if let owner = GrantRules.ownerToCheck(of: realmPath, granting: access) {
                let (statement, id) = GrantStatements.ownerExists(owner)
                ownerKnown = try await transaction.value(statement, id, environmentID, as: Bool.self) ?? false
            }
            let plan = try GrantRules.change(access, realmPath: realmPath, facts: facts, ownerKnown: ownerKnown, actor: caller.actor)
            try await transaction.apply(plan, environmentID: environmentID, now: now)
            guard let updated = try await transaction.accessFacts(userID: userID, environmentID: environmentID) else {
                throw DirectoryError.unknownUser
            }
            return updated
        }
        await revocationsCaughtUp()
        return facts
    }
}
