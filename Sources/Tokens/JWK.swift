internal import Foundation

/// A JSON Web Key (RFC 7517); we only ever serialise public parts.
public struct JWK: Codable, Sendable, Equatable {
    /// Key type: "EC" or "RSA" (others are rejected when used).
    public var kty: String
    /// Key identifier.
    public var kid: String?
    /// Intended use; "sig" for our keys.
    public var use: String?
    /// Algorithm the key is meant for, e.g. "ES256".
    public var alg: String?
    /// EC curve name, "P-256".
    public var crv: String?
    /// EC x coordinate, base64url.
    public var x: String?
    /// EC y coordinate, base64url.
    public var y: String?
    /// RSA modulus, base64url.
    public var n: String?
    /// RSA public exponent, base64url.
    public var e: String?

    /// Creates a JWK from its members.
    public init(
        kty: String, kid: String? = nil, use: String? = nil, alg: String? = nil, crv: String? = nil,
        x: String? = nil, y: String? = nil, n: String? = nil, e: String? = nil
    ) {
        self.kty = kty
        self.kid = kid
        self.use = use
        self.alg = alg
        self.crv = crv
        self.x = x
        self.y = y
        self.n = n
        self.e = e
    }

    /// RFC 7638 thumbprint: base64url SHA-256 of the required members in canonical JSON.
    /// Throws `unsupportedKey` for key types other than EC and RSA, `invalidKey` if a member is missing.
    public func thumbprint() throws(TokenError) -> String {
        let members: KeyValuePairs<String, String> =
            switch kty {
            case "EC": ["crv": try required(crv, "crv"), "kty": kty, "x": try required(x, "x"), "y": try required(y, "y")]
            case "RSA": ["e": try required(e, "e"), "kty": kty, "n": try required(n, "n")]
            default: throw TokenError.unsupportedKey("kty \(kty)")
            }
        // Members in lexical order, no whitespace: RFC 7638's canonical form. Written by hand
        // because a DPoP proof's key is thumbprinted on every request (JSONEncoder is slow).
        let canonical = "{" + members.map { "\(Self.jsonString($0.key)):\(Self.jsonString($0.value))" }.joined(separator: ",") + "}"
        return Crypto.base64URLEncode(Crypto.sha256(Array(canonical.utf8)))
    }

    /// `text` as a JSON string (RFC 8259 §7): quoted, with `"`, `\` and control characters escaped.
    static func jsonString(_ text: String) -> String {
        var quoted = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case let control where control.value < 0x20: quoted += String(format: "\\u%04x", control.value)
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "\""
    }

    /// The value of a required member, or `invalidKey` naming it.
    func required(_ value: String?, _ name: String) throws(TokenError) -> String {
        guard let value else { throw .invalidKey("\(kty) JWK lacks \"\(name)\"") }
        return value
    }

    /// A required base64url member, decoded.
    func requiredBytes(_ value: String?, _ name: String) throws(TokenError) -> [UInt8] {
        guard let bytes = Crypto.base64URLDecode(try required(value, name)) else {
            throw .invalidKey("JWK member \"\(name)\" is not base64url")
        }
        return bytes
    }
}
