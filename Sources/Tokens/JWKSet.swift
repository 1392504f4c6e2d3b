/// An RFC 7517 key set, as published at a `jwks_uri`.
public struct JWKSet: Codable, Sendable, Equatable {
    /// The keys, in publication order.
    public var keys: [JWK]

    /// Creates a key set.
    public init(keys: [JWK]) {
        self.keys = keys
    }
}
