import NIOSSL
import PostgresNIO
import Foundation

/// PostgreSQL could not be reached at start-up: one line naming the server, its TLS mode and
/// the reason, instead of PostgresNIO's deliberately vague error or a stack of NIO errors.
/// Holds no password: PostgreSQL's own messages name at most the user and the database.
public struct PostgresConnectFailure: Error, CustomStringConvertible {
    public let description: String

    init(_ settings: PostgresSettings, error: any Error) {
        description =
            "cannot connect to PostgreSQL at \(settings.host):\(settings.port) (storage.postgres.tls: \(settings.tls.name)): "
            + Self.reason(error, tls: settings.tls)
    }

    private static func reason(_ error: any Error, tls: PostgresTLS) -> String {
        switch error {
        case let error as PSQLError:
            if error.code == .sslUnsupported { return "the server does not accept TLS connections" }
            if let message = error.serverInfo?[.message] { return "the server refused: \(message)" }
            return error.underlying.map { reason($0, tls: tls) } ?? "\(error.code)"
        case let error as NIOSSLExtraError where error == .failedToValidateHostname:
            return "the server's certificate is not issued for this host"
        case NIOSSLError.handshakeFailed(.sslError(let stack)):
            let reasons = stack.map(Self.reasonCode)
            guard reasons.contains("CERTIFICATE_VERIFY_FAILED") else {
                return "the TLS handshake failed (\(reasons.joined(separator: ", ")))"
            }
            let trusted =
                if case .verifyFull(.some) = tls { "a CA in storage.postgres.ca_file" } else { "a CA of the system's trust store" }
            return "the server's certificate did not verify: it is not signed by \(trusted), or it has expired"
        default:
            return String(describing: error)
        }
    }

    /// BoringSSL's reason, e.g. `CERTIFICATE_VERIFY_FAILED` out of
    /// `Error: 268435581 error:1000007d:SSL routines:OPENSSL_internal:CERTIFICATE_VERIFY_FAILED at handshake.cc:320`.
    private static func reasonCode(_ error: BoringSSLInternalError) -> String {
        let text = error.description
        guard let start = text.range(of: "OPENSSL_internal:")?.upperBound else { return text }
        return String(text[start...].prefix { $0 != " " })
    }
}
