/// Which audit entries the console's Audit page and a person's history show; `nil` matches all.
public struct AuditFilter: Sendable, Equatable {
    /// The actor exactly (`cli`, `scim`, `user:<id>`, `console:<id>`, …).
    public var actor: String?
    /// The action exactly (`user.role`, `team.add_member`, …).
    public var action: String?
    /// Entries about this person: their target is `user:<id>`, or their before or after
    /// names the person (`user`), as a team membership change does.
    public var personID: String?

    public init(actor: String? = nil, action: String? = nil, personID: String? = nil) {
        self.actor = actor
        self.action = action
        self.personID = personID
    }

    public static let all = AuditFilter()
}
