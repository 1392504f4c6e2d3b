public import Foundation

/// What SCIM keeps of a person besides their email (`userName`) and whether they are active.
public struct ScimProfile: Codable, Sendable, Equatable {
    /// The IdP's id of the person (Entra ID's object id).
    public var externalID: String?
    public var displayName: String?
    /// `name`'s sub-attributes by their schema names (`givenName`, `familyName`, …).
    public var name: [String: String]
    public var emails: [ScimEmail]

    public init(externalID: String? = nil, displayName: String? = nil, name: [String: String] = [:], emails: [ScimEmail] = []) {
        self.externalID = externalID
        self.displayName = displayName
        self.name = name
        self.emails = emails
    }
}

/// One of a person's `emails`.
public struct ScimEmail: Codable, Sendable, Equatable {
    public var value: String
    public var type: String?
    public var primary: Bool?
    public var display: String?

    public init(value: String, type: String? = nil, primary: Bool? = nil, display: String? = nil) {
        self.value = value
        self.type = type
        self.primary = primary
        self.display = display
    }
}

/// A person as SCIM shows them.
public struct ScimUserRecord: Sendable, Equatable {
    public var user: UserRecord
    public var profile: ScimProfile
    /// The last SCIM change; `nil` for a person SCIM never changed.
    public var updatedAt: Date?

    public init(user: UserRecord, profile: ScimProfile, updatedAt: Date?) {
        self.user = user
        self.profile = profile
        self.updatedAt = updatedAt
    }
}

/// A SCIM group: a team (`teamID` set, the same id) or a role group, whose members get the
/// role `roles_from_idp.map` gives its name or external id.
public struct ScimGroupRecord: Sendable, Equatable {
    public var id: String
    public var teamID: String?
    public var displayName: String
    public var externalID: String?
    /// Member user ids, sorted.
    public var members: [String]
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: String, teamID: String?, displayName: String, externalID: String?, members: [String], createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.teamID = teamID
        self.displayName = displayName
        self.externalID = externalID
        self.members = members
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// One page of a list, and how many match in all.
public struct ScimPage<Item: Sendable>: Sendable {
    public var total: Int
    public var items: [Item]

    public init(total: Int, items: [Item]) {
        self.total = total
        self.items = items
    }
}
