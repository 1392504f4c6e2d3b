/// A token's confirmation claim (RFC 7800 `cnf`), as DPoP uses it: the RFC 7638 thumbprint
/// of the key whose proofs must come with the token.
public struct KeyConfirmation: Codable, Sendable, Equatable {
    public var jkt: String

    public init(jkt: String) {
        self.jkt = jkt
    }

    /// The `token_type` of an access token bound to `key`: `DPoP` for a bound one (RFC 9449
    /// §5), `Bearer` for the rest.
    public static func tokenType(boundTo key: String?) -> String {
        key == nil ? "Bearer" : "DPoP"
    }
}
