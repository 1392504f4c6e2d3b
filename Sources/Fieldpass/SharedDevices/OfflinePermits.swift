import FieldpassDomain
import Foundation
import Tokens

/// Offline permits (`shared_devices.offline_permit_ttl`): a JWS of Fieldpass's signing key,
/// `typ: offline-permit+jwt`, that lets its person start a shift on one shared device (its
/// `cnf.jkt`) with badge and PIN when the device has no network, until it expires. It holds
/// what the device's apps need of the person offline (as an access token says it) and nothing
/// secret: no PIN, no PIN hash, no badge. It has no `aud`, so that no sync server that checks
/// the audience of access tokens takes it for one; its `typ` tells it from any other token.
struct OfflinePermits: Sendable {
    static let type = "offline-permit+jwt"
    /// How far a device's clock may be from ours, as for any token's times.
    static let skew = JWTVerificationPolicy().leeway

    let keys: KeyRotation
    let issuer: String
    let policy: RealmPolicy
    /// Seconds a permit lives; 0: offline shifts are off.
    let ttl: Int
    let maxFailedPins: Int

    /// What a permit says.
    struct Claims: Encodable {
        var iss: String
        var sub: String
        var env: String
        var email: String
        var role: String
        var realms: [String: RealmAccess]
        var cnf: KeyConfirmation
        var jti: String
        var iat: Int
        var exp: Int
        var maxFailedPins: Int

        enum CodingKeys: String, CodingKey {
            case iss, sub, env, email, role, realms, cnf, jti, iat, exp
            case maxFailedPins = "max_failed_pins"
        }
    }

    /// What reconciliation reads of a permit whose signature held.
    private struct Checked: Decodable {
        var sub: String
        var env: String
        var cnf: KeyConfirmation
        var jti: String
        var iat: Int
        var exp: Int
    }

    /// The permit a badge sign-in at `now` issues: `nil` when offline shifts are off.
    func issue(now: Date) throws(TokenError) -> OfflinePermitIssue? {
        guard ttl > 0 else { return nil }
        // In whole seconds, as the permit's `exp` says it.
        let expiresAt = Date(timeIntervalSince1970: (now.timeIntervalSince1970 + TimeInterval(ttl)).rounded(.down))
        return OfflinePermitIssue(id: try Crypto.randomToken(byteCount: 16), expiresAt: expiresAt)
    }

    /// The signed permit `id`, issued at `issuedAt` until `expiresAt`, for the person as
    /// `facts` says they are now, on the device whose key has `keyThumbprint`.
    func sign(
        id: String, issuedAt: Date, expiresAt: Date, facts: AccessFacts, keyThumbprint: String, now: Date = Date()
    ) throws(TokenError) -> String {
        try keys.published(now: now).signer.sign(
            Claims(
                iss: issuer, sub: facts.user.id, env: facts.user.environmentID, email: facts.user.email, role: facts.user.role.rawValue,
                realms: policy.realms(for: facts), cnf: KeyConfirmation(jkt: keyThumbprint), jti: id,
                iat: Int(issuedAt.timeIntervalSince1970), exp: Int(expiresAt.timeIntervalSince1970), maxFailedPins: maxFailedPins),
            type: Self.type)
    }

    /// What each of `tokens` says when it is a permit of ours: signed by a key we publish, of
    /// the permit's type and issuer; `nil` for anything else. Their times are not judged here
    /// but by ``OfflineShiftRules``, against each shift's start. One verifier serves them all.
    func verify(_ tokens: [String], now: Date = Date()) -> [OfflineShiftReport.Permit?] {
        let verifier = JWTVerifier(
            keys: keys.published(now: now).verifier.keys,
            policy: JWTVerificationPolicy(issuer: issuer, type: Self.type, checksTimes: false))
        return tokens.map { Self.permit($0, verifier: verifier, now: now) }
    }

    private static func permit(_ token: String, verifier: JWTVerifier, now: Date) -> OfflineShiftReport.Permit? {
        guard let checked = try? verifier.verify(token, now: now).decode(Checked.self) else { return nil }
        return OfflineShiftReport.Permit(
            id: checked.jti, userID: checked.sub, environmentID: checked.env, keyThumbprint: checked.cnf.jkt,
            issuedAt: Date(timeIntervalSince1970: TimeInterval(checked.iat)),
            expiresAt: Date(timeIntervalSince1970: TimeInterval(checked.exp)))
    }
}
