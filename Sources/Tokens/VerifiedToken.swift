public import Foundation

/// A token that passed verification.
public struct VerifiedToken: Sendable {
    /// The header's kid, if it had one.
    public let kid: String?
    /// The algorithm the signature was checked with.
    public let algorithm: SigningAlgorithm
    /// The registered claims, already checked against the policy.
    public let claims: RegisteredClaims
    /// The raw JSON claims object, for the caller to decode its own claim types.
    public let payload: Data

    /// Decodes the payload into the caller's claim type (dates as seconds since 1970);
    /// failure → `TokenError.malformed`.
    public func decode<T: Decodable>(_ type: T.Type) throws(TokenError) -> T {
        try JSON.decode(type, from: payload, context: "claims")
    }
}
