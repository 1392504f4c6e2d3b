/// Which people the console's People page lists.
public struct PeopleQuery: Sendable, Equatable {
    /// Where a person stands.
    public enum Status: String, Sendable, CaseIterable {
        /// Never completed a sign-in, and not disabled.
        case notSignedIn = "not_signed_in"
        /// Signed in at least once, and not disabled.
        case active
        case disabled
    }

    /// A case-insensitive part of the email or of the SCIM display name.
    public var search: String?
    public var role: Role?
    /// Members of this team only.
    public var teamID: String?
    public var status: Status?
    public var offset: Int
    public var limit: Int

    public init(search: String? = nil, role: Role? = nil, teamID: String? = nil, status: Status? = nil, offset: Int = 0, limit: Int = 50) {
        self.search = search
        self.role = role
        self.teamID = teamID
        self.status = status
        self.offset = offset
        self.limit = limit
    }
}
