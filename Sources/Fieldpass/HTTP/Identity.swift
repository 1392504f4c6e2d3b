public import FieldpassDomain
import HTTPTypes

/// Who is calling, established from a verified bearer token.
public struct Identity: Sendable, Equatable {
    /// A person (with their role as stored now, not as the token says) or a backend integration.
    public enum Principal: Sendable, Equatable {
        case user(UserRecord)
        case service(accountID: String)
    }

    /// The environment the caller belongs to; everything they see is scoped to it.
    public let environmentID: String
    public let principal: Principal
    /// The device a person's token was issued to.
    public let deviceID: String?
    /// Whether the person acts through the admin console rather than with a bearer token.
    public let viaConsole: Bool

    public init(environmentID: String, principal: Principal, deviceID: String? = nil, viaConsole: Bool = false) {
        self.environmentID = environmentID
        self.principal = principal
        self.deviceID = deviceID
        self.viaConsole = viaConsole
    }

    /// How the audit log names the caller: a console action says so, and whose it was.
    var actor: String {
        switch principal {
        case .user(let user): viaConsole ? "console:\(user.id)" : "user:\(user.id)"
        case .service(let accountID): "service:\(accountID)"
        }
    }

    /// The caller as a person, or 403.
    func requireUser() throws -> UserRecord {
        guard case .user(let user) = principal else {
            throw APIError(.forbidden, AuthErrorCode.forbidden, "This endpoint is for people, not service accounts.")
        }
        return user
    }

    /// A person whose role allows `action` (``Role/may(_:)``), or 403.
    func require(_ action: DirectoryAction) throws {
        guard try requireUser().role.may(action) else {
            let message =
                switch action {
                case .read: "Only admins and managers may read this."
                case .administer: "Only an admin may do this."
                }
            throw APIError(.forbidden, AuthErrorCode.forbidden, message)
        }
    }

    /// A backend integration's service account, or 403.
    func requireServiceAccount() throws -> String {
        guard case .service(let accountID) = principal else {
            throw APIError(.forbidden, AuthErrorCode.forbidden, "Only a service account may use the integration API.")
        }
        return accountID
    }
}
