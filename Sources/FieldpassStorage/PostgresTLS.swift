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
}
