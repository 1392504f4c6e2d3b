import Foundation
public import NIOSSL

/// How the connection to PostgreSQL is protected.
///
/// Keys: `storage.postgres.tls` (`disable`, `require` or `verify-full`; default
/// `verify-full`, but `disable` when the host is loopback, where nobody can listen in
/// between) and `storage.postgres.ca_file` (PEM certificates to verify the server with, only
/// for `verify-full`; without it, the system's trust store). The certificates are read here,
/// so a missing or empty file stops start-up instead of the first connection.
public enum PostgresTLS: Sendable, Equatable {
    /// Plain TCP.
    case disable
    /// Encrypted, the certificate not checked (libpq's `sslmode=require`): safe from
    /// listeners, not from an impostor.
    case require
    /// Encrypted, the chain verified against `trustRoots` (the system's when nil) and the
    /// certificate checked to name the host.
    case verifyFull(trustRoots: [NIOSSLCertificate]?)

    /// The mode as the configuration spells it.
    public var name: String {
        switch self {
        case .disable: "disable"
        case .require: "require"
        case .verifyFull: "verify-full"
        }
    }

    init(_ settings: SettingsReader, host: String) throws(ConfigurationError) {
        let modeKey = ["storage", "postgres", "tls"]
        let caKey = ["storage", "postgres", "ca_file"]
        let mode = try settings.string(modeKey, default: LoopbackHost.contains(host) ? "disable" : "verify-full")
        let caFile = try settings.optionalString(caKey)
        switch mode {
        case "verify-full":
            guard let caFile else {
                self = .verifyFull(trustRoots: nil)
                return
            }
            self = .verifyFull(trustRoots: try Self.certificates(in: caFile, key: settings.dotted(caKey)))
        case "disable", "require":
            guard caFile == nil else {
                throw ConfigurationError(key: settings.dotted(caKey), "is used only with storage.postgres.tls: verify-full, not \(mode)")
            }
            self = mode == "disable" ? .disable : .require
        default:
            throw ConfigurationError(key: settings.dotted(modeKey), "must be disable, require or verify-full, not '\(mode)'")
        }
    }

    private static func certificates(in path: String, key: String) throws(ConfigurationError) -> [NIOSSLCertificate] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue else {
            throw ConfigurationError(key: key, "no file at '\(path)'")
        }
        // NIOSSL throws when the file holds no certificate at all (an empty file, a key).
        guard let certificates = try? NIOSSLCertificate.fromPEMFile(path), !certificates.isEmpty else {
            throw ConfigurationError(key: key, "'\(path)' holds no PEM certificate")
        }
        return certificates
    }
}
