/// The registered claims (RFC 7519 section 4.1) the verifier checks.
public struct RegisteredClaims: Decodable, Sendable, Equatable {
    /// Issuer.
    public var iss: String?
    /// Subject.
    public var sub: String?
    /// Audiences; a single string in the token decodes as a one-element array.
    public var aud: [String]?
    /// Expiry, seconds since 1970.
    public var exp: Double?
    /// Not-before, seconds since 1970.
    public var nbf: Double?
    /// Issued-at, seconds since 1970.
    public var iat: Double?
    /// Token identifier.
    public var jti: String?

    /// Creates claims from their values.
    public init(
        iss: String? = nil, sub: String? = nil, aud: [String]? = nil,
        exp: Double? = nil, nbf: Double? = nil, iat: Double? = nil, jti: String? = nil
    ) {
        self.iss = iss
        self.sub = sub
        self.aud = aud
        self.exp = exp
        self.nbf = nbf
        self.iat = iat
        self.jti = jti
    }

    private enum CodingKeys: String, CodingKey {
        case iss, sub, aud, exp, nbf, iat, jti
    }

    /// Decodes the claims, accepting `aud` as a string or an array of strings.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        iss = try container.decodeIfPresent(String.self, forKey: .iss)
        sub = try container.decodeIfPresent(String.self, forKey: .sub)
        if let single = try? container.decodeIfPresent(String.self, forKey: .aud) {
            aud = [single]
        } else {
            aud = try container.decodeIfPresent([String].self, forKey: .aud)
        }
        exp = try container.decodeIfPresent(Double.self, forKey: .exp)
        nbf = try container.decodeIfPresent(Double.self, forKey: .nbf)
        iat = try container.decodeIfPresent(Double.self, forKey: .iat)
        jti = try container.decodeIfPresent(String.self, forKey: .jti)
    }
}
