public import Foundation

/// One row of the People page.
public struct PersonSummary: Sendable, Equatable {
    public var user: UserRecord
    /// The SCIM display name, where the IdP provisioned one.
    public var displayName: String?
    /// The first completed sign-in; `nil` for someone who never signed in.
    public var signedInAt: Date?
    /// The last sign-in or refresh on any of their devices.
    public var lastSeenAt: Date?

    public init(user: UserRecord, displayName: String? = nil, signedInAt: Date? = nil, lastSeenAt: Date? = nil) {
        self.user = user
        self.displayName = displayName
        self.signedInAt = signedInAt
        self.lastSeenAt = lastSeenAt
    }

    public var status: PeopleQuery.Status {
        if user.disabled { return .disabled }
        return signedInAt == nil ? .notSignedIn : .active
    }
}
