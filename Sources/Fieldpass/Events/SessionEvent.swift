public import Foundation

/// What a device hears on its event socket (DESIGN.md, "Onboarding flow").
public enum SessionEvent: Sendable, Equatable {
    case token(accessToken: String, refreshToken: String, expiresIn: Int)
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

    /// The JSON text frame for sequence number `seq`.
    public func frame(seq: Int) -> String {
        var frame = Frame(seq: seq, type: type)
        switch self {
        case .token(let accessToken, let refreshToken, let expiresIn):
            frame.accessToken = accessToken
            frame.refreshToken = refreshToken
            frame.tokenType = "Bearer"
            frame.expiresIn = expiresIn
        case .realmInitialized(let realmPath), .dataReady(let realmPath):
            frame.realmPath = realmPath
        case .loginFailed(let error, let description):
            frame.error = error
            frame.errorDescription = description
        case .sessionExpired:
            break
        }
        return Self.encode(frame)
    }

    private static func encode(_ frame: Frame) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding a struct of strings and integers cannot fail.
        let data = (try? encoder.encode(frame)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// The wire form; nil fields are left out.
    struct Frame: Codable {
        var seq: Int
        var type: String
        var accessToken: String? = nil
        var refreshToken: String? = nil
        var tokenType: String? = nil
        var expiresIn: Int? = nil
        var realmPath: String? = nil
        var error: String? = nil
        var errorDescription: String? = nil

        enum CodingKeys: String, CodingKey {
            case seq, type
            case accessToken = "access_token"
            case refreshToken = "refresh_token"
            case tokenType = "token_type"
            case expiresIn = "expires_in"
            case realmPath = "realm_path"
            case error
            case errorDescription = "error_description"
        }
    }
}
