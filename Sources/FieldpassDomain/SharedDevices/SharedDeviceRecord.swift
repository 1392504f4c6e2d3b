public import Foundation

/// A device a crew shares, such as a van's tablet: an admin (or the team's manager) names it
/// and gets a one-time enrollment code; the device enrolls with that code and a DPoP proof,
/// and from then on its key is its identity.
public struct SharedDeviceRecord: Codable, Sendable, Equatable {
    public var id: String
    public var environmentID: String
    public var name: String
    /// The team whose manager may look after it, if any.
    public var teamID: String?
    public var createdAt: Date
    /// When the enrollment code stops working, if the device has not enrolled by then.
    public var enrollmentExpiresAt: Date
    public var enrolledAt: Date?
    /// The JWK thumbprint (RFC 7638) of the key the device enrolled with.
    public var keyThumbprint: String?
    /// When an admin unenrolled it: its key is refused from then on.
    public var unenrolledAt: Date?
    /// The open shift, for reads that ask who holds the device now.
    public var holder: ShiftRecord?

    public init(
        id: String, environmentID: String, name: String, teamID: String?, createdAt: Date, enrollmentExpiresAt: Date,
        enrolledAt: Date? = nil,
        keyThumbprint: String? = nil, unenrolledAt: Date? = nil
    ) {
        self.id = id
        self.environmentID = environmentID
        self.name = name
        self.teamID = teamID
        self.createdAt = createdAt
        self.enrollmentExpiresAt = enrollmentExpiresAt
        self.enrolledAt = enrolledAt
        self.keyThumbprint = keyThumbprint
        self.unenrolledAt = unenrolledAt
    }

    /// Where the device stands in its life.
    public var state: SharedDeviceState {
        if unenrolledAt != nil { return .unenrolled }
        return enrolledAt == nil ? .awaitingEnrollment : .enrolled
    }
}

public enum SharedDeviceState: String, Codable, Sendable {
    case awaitingEnrollment = "awaiting_enrollment"
    case enrolled
    case unenrolled
}
