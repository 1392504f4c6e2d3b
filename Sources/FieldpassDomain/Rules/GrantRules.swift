/// Explicit grants: who decides what a grant's path may name, and what setting one writes.
package enum GrantRules {
    /// The person or team a realm path belongs to.
    package enum Owner: Sendable, Equatable {
        case user(id: String)
        case team(id: String)
    }

    /// The owner a new grant's path names, which must be of the granting admin's environment
    /// (another environment's ids are unknown here, as everywhere else); `nil` when there is
    /// nothing to check: a removal, a pattern (`users/*`), or a realm of no person or team.
    package static func ownerToCheck(of realmPath: String, granting access: RealmAccess?) -> Owner? {
        guard access != nil else { return nil }
        let segments = realmPath.split(separator: "/")
        guard segments.count >= 2, segments[1] != "*" else { return nil }
        let id = String(segments[1])
        switch segments[0] {
        case "users": return .user(id: id)
        case "teams": return .team(id: id)
        default: return nil
        }
    }

    /// Sets (`access` given) or removes (`nil`) the grant of `realmPath` to the person `facts`
    /// describe. `ownerKnown` says whether ``ownerToCheck(of:granting:)``'s owner is of the
    /// environment (ignored when there was none). Setting what is set writes nothing.
    package static func change(
        _ access: RealmAccess?, realmPath: String, facts: AccessFacts?, ownerKnown: Bool, actor: String
    ) throws -> DirectoryPlan {
        guard let facts else { throw DirectoryError.unknownUser }
        if ownerToCheck(of: realmPath, granting: access) != nil, !ownerKnown { throw DirectoryError.unknownRealm }
        let userID = facts.user.id
        let previous = facts.grants[realmPath]
        guard previous != access else { return .unchanged }
        let write: DirectoryWrite =
            access.map { .setGrant(userID: userID, realmPath: realmPath, access: $0) } ?? .removeGrant(userID: userID, realmPath: realmPath)
        return DirectoryPlan([write, .audit(.grant(actor: actor, userID: userID, realmPath: realmPath, from: previous, to: access))])
    }
}
