import Foundation

/// What a device hears on its event socket (DESIGN.md, "Onboarding flow").
public enum SessionEvent: Sendable, Equatable {
    /// `tokenType`: `Bearer`, or `DPoP` when the access token is bound to the device's key.
    case token(accessToken: String, refreshToken: String, expiresIn: Int, tokenType: String = "Bearer")
    case realmInitialized(realmPath: String)
    case dataReady(realmPath: String)
    case loginFailed(error: String, description: String)
    case sessionExpired

    /// The `type` field.
    public var type: String {
        switch self {
        case .token: "token"
        case .realmInitialized: "realm_initialized"
        case .dataReady: "data_ready"
        case .loginFailed: "login_failed"
        case .sessionExpired: "session_expired"
        }
    }

    /// After these the server closes the socket: the session has nothing more to say.
    public var isTerminal: Bool {
        switch self {
        case .dataReady, .loginFailed, .sessionExpired: true
        case .token, .realmInitialized: false
        }
    }
}

extension SessionEvent {
    /// The form a store keeps: the event's fields as a JSON object, named as on the socket but
    /// without the sequence number, which the socket's frame adds when it is sent.
    package func storedForm() throws -> String {
        try StableJSON.text(SessionEventFields(self))
    }

    /// The event a store kept. Frames stored whole by earlier versions read the same way.
    package init(storedForm: String) throws {
        self = try JSONDecoder().decode(SessionEventFields.self, from: Data(storedForm.utf8)).event()
    }
}

/// An event's fields as they are named on the socket: what a store keeps, and what the
/// socket's frame carries besides `seq`. A stored token event without `token_type` (kept
/// before tokens could be bound) is a `Bearer` one.
package struct SessionEventFields: Codable {
    package var type: String
    package var accessToken: String?
    package var tokenType: String?
    package var refreshToken: String?
    package var expiresIn: Int?
    package var realmPath: String?
    package var error: String?
    package var errorDescription: String?

    enum CodingKeys: String, CodingKey {
        case type
        case accessToken = "access_token"
        case tokenType = "token_type"
        case refreshToken = "refresh_token"
        case expiresIn = "expires_in"
        case realmPath = "realm_path"
        case error
        case errorDescription = "error_description"
    }

    package init(_ event: SessionEvent) {
        type = event.type
        switch event {
        case .token(let accessToken, let refreshToken, let expiresIn, let tokenType):
            self.accessToken = accessToken
            self.tokenType = tokenType == "Bearer" ? nil : tokenType
            self.refreshToken = refreshToken
            self.expiresIn = expiresIn
        case .realmInitialized(let realmPath), .dataReady(let realmPath):
            self.realmPath = realmPath
        case .loginFailed(let error, let description):
            self.error = error
            errorDescription = description
        case .sessionExpired:
            break
        }
    }

    func event() throws -> SessionEvent {
        switch type {
        case "token":
            guard let accessToken, let refreshToken, let expiresIn else { throw StoreInconsistency("token event without its tokens") }
            return .token(accessToken: accessToken, refreshToken: refreshToken, expiresIn: expiresIn, tokenType: tokenType ?? "Bearer")
        case "realm_initialized", "data_ready":
            guard let realmPath else { throw StoreInconsistency("\(type) event without its realm") }
            return type == "data_ready" ? .dataReady(realmPath: realmPath) : .realmInitialized(realmPath: realmPath)
        case "login_failed":
            return .loginFailed(error: error ?? "", description: errorDescription ?? "")
        case "session_expired":
            return .sessionExpired
        default:
            throw StoreInconsistency("unknown event type '\(type)'")
        }
    }
}
