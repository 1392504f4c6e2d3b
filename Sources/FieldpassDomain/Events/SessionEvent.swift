import Foundation

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
    public func frame(seq: Int) throws -> String {
        var frame = EventFrame(seq: seq, type: type)
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
        return String(decoding: try Self.encoder.encode(frame), as: UTF8.self)
    }

    /// Sorted keys make frames stable for tests and logs; plain slashes keep paths readable.
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}
