/// An offline permit a shared device holds, as an admin sees it: whose it is, until when, and
/// whether its badge was revoked or replaced since. A lost device's permits name the people
/// whose PINs to reset.
public struct OfflinePermitHolder: Sendable, Equatable {
    public var permit: OfflinePermitRecord
    public var email: String

    public init(permit: OfflinePermitRecord, email: String) {
        self.permit = permit
        self.email = email
    }
}
