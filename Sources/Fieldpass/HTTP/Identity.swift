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

    /// The caller as the directory sees them: what they may change, and their audit actor.
    var directoryCaller: DirectoryCaller {
        switch principal {
        case .user(let user): viaConsole ? .console(user) : .admin(user)
        case .service(let accountID): .service(accountID: accountID, environmentID: environmentID)
        }
    }

    var actor: String { directoryCaller.actor }

    /// The caller as a person, or 403.
    func requireUser() throws -> UserRecord {
        guard case .user(let user) = principal else {
            throw APIError(.forbidden, AuthErrorCode.forbidden, "This endpoint is for people, not service accounts.")
        }
        return user
    }

    /// A person whose role allows `action` (``DirectoryCaller/may(_:)``), or 403.
    func require(_ action: DirectoryAction) throws {
        _ = try requireUser()
        guard directoryCaller.may(action) else { throw DirectoryError.notAllowed(action).apiError }
    }

    /// A backend integration's service account, or 403.
    func requireServiceAccount() throws -> String {
        guard case .service(let accountID) = principal else {
            throw APIError(.forbidden, AuthErrorCode.forbidden, "Only a service account may use the integration API.")
        }
        return accountID
    }
}
