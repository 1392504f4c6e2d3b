/// An audit entry with what a person reads for the ids it holds, as the store names them at
/// the time of reading: a person by email, a team, a shared device, a personal device or a
/// role group by name. An id whose thing is gone (a person deleted, a team removed) has no
/// name here; the entry itself may still say it (``AuditRecord``'s `email` and `name` fields).
public struct NamedAuditEntry: Sendable, Equatable {
    public var entry: AuditEntry
    /// The person (`user:<id>`, `console:<id>`) or shared device (`shared_device:<id>`) that acted.
    public var actorName: String?
    /// The person, team, shared device or role group the entry is about.
    public var targetName: String?
    /// What the ids of `before` and `after` stand for, by field (one of ``namedFields``).
    public var fieldNames: [String: String]

    public init(entry: AuditEntry, actorName: String? = nil, targetName: String? = nil, fieldNames: [String: String] = [:]) {
        self.entry = entry
        self.actorName = actorName
        self.targetName = targetName
        self.fieldNames = fieldNames
    }

    /// The fields of `before` and `after` that hold an id the store names, and of what.
    public static let namedFields: [String: NamedKind] = [
        "user": .person, "team_id": .team, "shared_device_id": .sharedDevice, "device_id": .device, "pin_issued_by": .actor,
    ]

    /// What an id names.
    public enum NamedKind: Sendable {
        /// A person's id.
        case person
        case team
        case sharedDevice
        /// A person's own device (``DeviceRecord``).
        case device
        /// An actor as entries write it (`user:<id>`, `console:<id>`): someone who made a temporary PIN.
        case actor
    }
}
