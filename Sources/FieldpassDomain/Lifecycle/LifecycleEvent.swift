public import Foundation

/// A change to a person, a device or a team that the company's backend follows through
/// `GET /integration/events`: enough to fill, re-scope or wipe a realm without asking back.
///
/// Made from an audit entry by ``LifecycleEventRules``, in the transaction that wrote it.
/// Stored as its JSON (these keys), so what the feed answers is what was decided then.
public struct LifecycleEvent: Codable, Sendable, Equatable {
    /// What the event is about: a person, a team or a device, named by id.
    public struct Subject: Codable, Sendable, Equatable {
        public var id: String
        public var email: String?
        public var name: String?

        public init(id: String, email: String? = nil, name: String? = nil) {
            self.id = id
            self.email = email
            self.name = name
        }
    }

    public var type: LifecycleEventType
    /// Who made the change, as a kind: `admin`, `user` (the person themselves), `cli`, `idp`,
    /// `scim`, `service` (a backend integration), `fieldpass` (the service on its own).
    public var actor: String
    /// The person or service account behind `admin`, `user` or `service`.
    public var actorID: String?
    public var user: Subject?
    public var team: Subject?
    public var device: Subject?
    /// Why a device was revoked: `revoked`, `user_disabled`, `identity_reset`,
    /// `token_revocation` or `refresh_token_reuse`; why a shift ended (``ShiftEndReason``).
    public var reason: String?
    /// The values that changed, as they were and as they are.
    public var before: [String: String]?
    public var after: [String: String]?

    enum CodingKeys: String, CodingKey {
        case type, actor
        case actorID = "actor_id"
        case user, team, device, reason, before, after
    }

    public init(
        type: LifecycleEventType, actor: String, actorID: String? = nil, user: Subject? = nil, team: Subject? = nil,
        device: Subject? = nil, reason: String? = nil, before: [String: String]? = nil, after: [String: String]? = nil
    ) {
        self.type = type
        self.actor = actor
        self.actorID = actorID
        self.user = user
        self.team = team
        self.device = device
        self.reason = reason
        self.before = before
        self.after = after
    }
}

/// The kinds of lifecycle event, as the feed names them.
public enum LifecycleEventType: String, Codable, Sendable, CaseIterable {
    case userCreated = "user.created"
    case userUpdated = "user.updated"
    case userDisabled = "user.disabled"
    case userEnabled = "user.enabled"
    case userDeleted = "user.deleted"
    case deviceRevoked = "device.revoked"
    case teamCreated = "team.created"
    case teamRenamed = "team.renamed"
    case teamDeleted = "team.deleted"
    case shiftStarted = "shift.started"
    case shiftEnded = "shift.ended"
    case badgeLocked = "badge.locked"
}

/// One event of the feed: its position (cursors are built from it), environment and time.
public struct LifecycleFeedEntry: Sendable, Equatable {
    public var position: Int64
    public var environmentID: String
    public var at: Date
    public var event: LifecycleEvent

    public init(position: Int64, environmentID: String, at: Date, event: LifecycleEvent) {
        self.position = position
        self.environmentID = environmentID
        self.at = at
        self.event = event
    }
}
