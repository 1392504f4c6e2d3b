public import Foundation

/// A person known to Fieldpass.
public struct UserRecord: Codable, Sendable, Equatable {
    public var id: String
    public var environmentID: String
    public var email: String
    public var role: Role
    public var createdAt: Date
    /// The IdP identity the user is bound to since their first sign-in (absent before, or after a reset).
    public var idpIssuer: String?
    public var idpSubject: String?
    /// A disabled person can neither sign in, refresh nor call the API.
    public var disabled: Bool

    public init(
        id: String, environmentID: String, email: String, role: Role, createdAt: Date, idpIssuer: String? = nil,
        idpSubject: String? = nil, disabled: Bool
    ) {
        self.id = id
        self.environmentID = environmentID
        self.email = email
        self.role = role
        self.createdAt = createdAt
        self.idpIssuer = idpIssuer
        self.idpSubject = idpSubject
        self.disabled = disabled
    }

    package enum CodingKeys: String, CodingKey {
        case id, email, role, disabled
        case environmentID = "environment_id"
        case createdAt = "created_at"
        case idpIssuer = "idp_issuer"
        case idpSubject = "idp_subject"
    }
}

/// One of a person's devices: one installation of the app (its `install_id`). A revoked
/// device's tokens are dead for good; the installation registering again is a new device.
public struct DeviceRecord: Sendable, Equatable {
    /// Where a device stands: registered and never signed in, holding tokens, or revoked.
    public enum State: String, Sendable {
        case registered
        case active
        case revoked
    }

    public var id: String
    public var userID: String
    public var name: String
    public var platform: String
    public var createdAt: Date
    /// The last registration, sign-in or refresh.
    public var lastSeenAt: Date
    /// The installation's first sign-in; `nil` while it has registered and never signed in.
    public var signedInAt: Date?
    public var revokedAt: Date?

    public init(
        id: String, userID: String, name: String, platform: String, createdAt: Date, lastSeenAt: Date, signedInAt: Date? = nil,
        revokedAt: Date? = nil
    ) {
        self.id = id
        self.userID = userID
        self.name = name
        self.platform = platform
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
        self.signedInAt = signedInAt
        self.revokedAt = revokedAt
    }

    public var state: State {
        if revokedAt != nil { return .revoked }
        return signedInAt == nil ? .registered : .active
    }
}

/// A team and its members' user ids.
public struct TeamRecord: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var members: [String]
    public var createdAt: Date

    public init(id: String, name: String, members: [String], createdAt: Date) {
        self.id = id
        self.name = name
        self.members = members
        self.createdAt = createdAt
    }

    /// The team's realm.
    public var realmPath: String { RealmPath.team(id: id) }

    package enum CodingKeys: String, CodingKey {
        case id, name, members
        case createdAt = "created_at"
    }
}

/// Everything that decides a person's realms.
public struct AccessFacts: Sendable, Equatable {
    public var user: UserRecord
    /// Ids of the teams the person is on.
    public var teams: [String]
    /// Explicit grants by an admin: realm path (or pattern) → level.
    public var grants: [String: RealmAccess]
    /// The names of `teams`, by id, read with them so that `/me` needs no second read.
    public var teamNames: [String: String]

    public init(user: UserRecord, teams: [String], grants: [String: RealmAccess], teamNames: [String: String] = [:]) {
        self.user = user
        self.teams = teams
        self.grants = grants
        self.teamNames = teamNames
    }
}

/// One change made by someone, as the audit log keeps it.
public struct AuditEntry: Codable, Sendable, Equatable {
    public var id: Int64
    /// `user:<id>`, `service:<id>`, `cli`, `bootstrap`, `idp` (the IdP's word at a sign-in) or
    /// `browser` (a refused callback).
    public var actor: String
    public var action: String
    public var target: String
    /// The state before and after; absent where there was none.
    public var before: [String: String]?
    public var after: [String: String]?
    public var at: Date

    public init(
        id: Int64, actor: String, action: String, target: String, before: [String: String]? = nil,
        after: [String: String]? = nil, at: Date
    ) {
        self.id = id
        self.actor = actor
        self.action = action
        self.target = target
        self.before = before
        self.after = after
        self.at = at
    }
}

/// A user realm as the integration feed lists it.
public struct RealmFeedEntry: Codable, Sendable, Equatable {
    /// Position in the feed; cursors are built from it.
    public var feedSeq: Int64
    public var realmPath: String
    public var userID: String
    public var email: String
    public var initialized: Bool
    /// Whether the realm's user has completed a sign-in; until then the user may be removed
    /// (`users.unconfirmed_retention`), realm and all.
    public var signedIn: Bool
    public var createdAt: Date

    public init(
        feedSeq: Int64, realmPath: String, userID: String, email: String, initialized: Bool, signedIn: Bool, createdAt: Date
    ) {
        self.feedSeq = feedSeq
        self.realmPath = realmPath
        self.userID = userID
        self.email = email
        self.initialized = initialized
        self.signedIn = signedIn
        self.createdAt = createdAt
    }
}

/// Why a directory change could not be made.
public enum DirectoryError: Error, Sendable, Equatable {
    case unknownUser
    case unknownTeam
    case unknownRealm
    case unknownDevice
    case teamNameTaken
    /// A shared device of the environment that is enrolled, or whose code still works, has
    /// this name (in any case) already.
    case sharedDeviceNameTaken
    /// The environment's sign-ins set roles from the IdP (`roles_from_idp`, `every_sign_in`).
    case roleManagedByIdP
    /// The environment's sign-ins set this team's members from the IdP (`teams_from_idp`, `every_sign_in`).
    case membershipManagedByIdP
    /// The person is provisioned through SCIM: only the IdP may set them active again.
    case activeManagedByScim
    /// The team is a SCIM group: its name, existence and members are the IdP's.
    case teamManagedByScim
    /// A person may not disable themselves (they could not undo it).
    case cannotDisableSelf
    /// The person has no badge.
    case unknownBadge
    /// The caller may not take this action (``DirectoryCaller/may(_:)``).
    case notAllowed(DirectoryAction)
}

/// Whose a refresh token is, and the key it is bound to (DPoP), if any.
public struct RefreshGrant: Sendable, Equatable {
    public var userID: String
    public var deviceID: String
    public var environmentID: String
    /// The RFC 7638 thumbprint of the device's key, whose proof every use needs.
    public var dpopThumbprint: String?
    /// The shift on a shared device the token is of, if it is (then `deviceID` is the shift's).
    public var shift: ShiftRecord?

    public init(
        userID: String, deviceID: String, environmentID: String, dpopThumbprint: String? = nil, shift: ShiftRecord? = nil
    ) {
        self.userID = userID
        self.deviceID = deviceID
        self.environmentID = environmentID
        self.dpopThumbprint = dpopThumbprint
        self.shift = shift
    }
}
