public import FieldpassDomain
import Foundation
public import Hummingbird

/// What the admin endpoints answer.
enum AdminResponses {
    struct Users: ResponseEncodable {
        var users: [UserRecord]
    }

    struct Teams: ResponseEncodable {
        var teams: [TeamRecord]
    }

    struct Permissions: ResponseEncodable {
        var userID: String
        var email: String
        var role: Role
        var teams: [String]
        var grants: [String: RealmAccess]
        var realms: [String: RealmAccess]

        init(facts: AccessFacts, policy: RealmPolicy) {
            userID = facts.user.id
            email = facts.user.email
            role = facts.user.role
            teams = facts.teams
            grants = policy.prefixes.outward(facts.grants, environmentID: facts.user.environmentID)
            realms = policy.realms(for: facts)
        }

        enum CodingKeys: String, CodingKey {
            case userID = "user_id"
            case email, role, teams, grants, realms
        }
    }

    struct AuditPage: ResponseEncodable {
        var entries: [AuditEntry]
        /// Pass as `before` for the next (older) page; absent on the last page.
        var nextBefore: Int64?

        enum CodingKeys: String, CodingKey {
            case entries
            case nextBefore = "next_before"
        }
    }
}

extension UserRecord: ResponseEncodable {}
extension TeamRecord: ResponseEncodable {}
