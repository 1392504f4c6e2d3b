import Foundation

/// A signed offline permit (`offline-permit+jwt`), as Fieldpass answers it at a badge sign-in
/// on a shared device: who the worker is and what they may do, bound to the device's key. It
/// holds no secret; what makes it worth anything is the PIN verifier the device keeps beside it.
///
/// Reading one checks its form only: ``KeptKeySet/verifies(_:)`` checks the signature.
struct OfflinePermit: Sendable {
    struct Header: Decodable {
        var alg: String
        var kid: String?
        var typ: String?
    }

    struct Claims: Decodable, Sendable {
        struct Confirmation: Decodable, Sendable {
            var jkt: String
        }

        var iss: String
        var sub: String
        var env: String
        var email: String
        var role: String
        var realms: [String: String]
        var cnf: Confirmation
        var jti: String
        var iat: Double
        var exp: Double
        var max_failed_pins: Int
    }

    /// The compact JWS, as sent back to Fieldpass at reconciliation.
    let compact: String
    let header: Header
    let claims: Claims
    /// The ASCII bytes of `header.payload`, which the signature covers.
    let signingInput: Data
    let signature: Data

    /// The algorithms Fieldpass signs with: never `none`, never an HMAC over a public key.
    static let algorithms: Set<String> = ["ES256", "RS256"]
    static let type = "offline-permit+jwt"

    /// Throws ``OfflineSignInError/invalidPermit`` for anything but a compact JWS of an offline
    /// permit: another `typ` (an access token passed off as a permit), an algorithm other than
    /// ES256 and RS256 (`none` above all), a claim missing.
    init(compact: String) throws {
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Data(base64URLEncoded: parts[0]),
            let payload = Data(base64URLEncoded: parts[1]), let signature = Data(base64URLEncoded: parts[2]),
            let header = try? JSONDecoder().decode(Header.self, from: headerBytes),
            Self.algorithms.contains(header.alg), header.typ == Self.type,
            let claims = try? JSONDecoder().decode(Claims.self, from: payload)
        else { throw OfflineSignInError.invalidPermit }
        self.compact = compact
        self.header = header
        self.claims = claims
        self.signingInput = Data("\(parts[0]).\(parts[1])".utf8)
        self.signature = signature
    }

    var expiresAt: Date { Date(timeIntervalSince1970: claims.exp) }
}
