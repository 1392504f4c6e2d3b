import Foundation

/// A DPoP proof (RFC 9449 §4.2) whose form and signature checked out: one compact JWS of
/// `typ` `dpop+jwt`, signed with an asymmetric algorithm we verify (ES256, RS256) by the
/// public key its own header carries, which holds no private member. What the proof claims
/// about the request (method, URL, time, token hash, nonce) is for the caller to judge.
public struct DPoPProof: Sendable, Equatable {
    /// Longest proof accepted: a header with an RSA key and a few claims fit well within it.
    public static let maximumLength = 8 * 1024
    /// The JWS `typ` of a proof.
    public static let type = "dpop+jwt"
    /// The algorithms a proof may be signed with; never `none` nor a MAC.
    public static let algorithms = SigningAlgorithm.allCases

    /// RFC 7638 thumbprint of the proof's key: what a token is bound to (`cnf.jkt`).
    public let thumbprint: String
    public let algorithm: SigningAlgorithm
    /// The request's method and URL, as the proof states them.
    public let htm: String
    public let htu: String
    /// When the proof was made, seconds since 1970.
    public let iat: Double
    public let jti: String
    /// The base64url SHA-256 of the access token presented with the proof.
    public let ath: String?
    public let nonce: String?

    /// Members of a JWK that only a private key has (RFC 7518 §6.2.2, §6.3.2, §6.4.1).
    private static let privateMembers = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"]

    private struct Header: Decodable {
        let typ: String?
        let alg: String?
        let jwk: JWK?
        let crit: [String]?
        /// The first member of `jwk` that only a private key has, if any.
        let privateMember: String?

        private enum CodingKeys: String, CodingKey { case typ, alg, jwk, crit }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            typ = try container.decodeIfPresent(String.self, forKey: .typ)
            alg = try container.decodeIfPresent(String.self, forKey: .alg)
            jwk = try container.decodeIfPresent(JWK.self, forKey: .jwk)
            crit = try container.decodeIfPresent([String].self, forKey: .crit)
            let members = jwk == nil ? nil : try container.nestedContainer(keyedBy: MemberName.self, forKey: .jwk)
            privateMember = members.flatMap { members in privateMembers.first { members.contains(MemberName(stringValue: $0)) } }
        }
    }

    private struct Claims: Decodable {
        let htm: String
        let htu: String
        let iat: Double
        let jti: String
        let ath: String?
        let nonce: String?
    }

    /// Checks the proof's form, key and signature; any failure is a `TokenError` saying which.
    /// `keys` holds the keys of earlier proofs, parsed (without it, each proof's is parsed anew).
    public init(verifying proof: String, keys: ProofKeyCache = ProofKeyCache(capacity: 1)) throws(TokenError) {
        guard proof.utf8.count <= Self.maximumLength else { throw .malformed("proof too large") }
        let parts = proof.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else { throw .malformed("expected one compact JWS") }
        guard let headerBytes = Crypto.base64URLDecode(parts[0]) else { throw .malformed("header is not base64url") }
        let header = try JSON.decode(Header.self, from: Data(headerBytes), context: "header")
        guard let members = JSONMembers(headerBytes) else { throw .malformed("header is not a JSON object") }
        if let name = members.duplicateName { throw .malformed("header repeats \"\(name)\"") }
        if header.crit != nil { throw .malformed("unsupported critical header parameters") }
        guard header.typ == Self.type else { throw .malformed("typ must be \(Self.type)") }
        guard let alg = header.alg, let algorithm = SigningAlgorithm(rawValue: alg) else {
            throw .algorithmNotAllowed(header.alg ?? "none")
        }
        guard let jwk = header.jwk else { throw .malformed("header has no jwk") }
        if let member = header.privateMember { throw .malformed("jwk holds the private member \"\(member)\"") }
        let thumbprint = try jwk.thumbprint()
        let key = try keys.key(for: jwk, thumbprint: thumbprint)
        guard key.algorithm == algorithm else { throw .algorithmNotAllowed(alg) }
        guard !parts[2].isEmpty, let signature = Crypto.base64URLDecode(parts[2]) else {
            throw .malformed("signature is missing or not base64url")
        }
        let signingInput = proof.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count)
        guard key.parsed.verify(signature, of: Array(signingInput)) else { throw .invalidSignature }
        guard let payload = Crypto.base64URLDecode(parts[1]) else { throw .malformed("payload is not base64url") }
        let claims = try JSON.decode(Claims.self, from: Data(payload), context: "claims")
        guard claims.iat.isFinite else { throw .malformed("iat is not a time") }
        self.thumbprint = thumbprint
        self.algorithm = algorithm
        htm = claims.htm
        htu = claims.htu
        iat = claims.iat
        jti = claims.jti
        ath = claims.ath
        nonce = claims.nonce
    }

}
