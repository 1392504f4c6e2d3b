import FieldpassDomain
import Foundation
import Hummingbird
import Tokens

/// A worker starting a shift on an enrolled shared device with their badge and PIN
/// (`POST /shared_devices/shift`, routed with the shift's other methods by
/// ``SharedDeviceShiftController``), the request proven by the device's key (DPoP). The answer is the token
/// set of a refresh, with the shift's id; the tokens are bound to the device's key and say
/// `amr: ["pin", "badge"]`, and `"temporary_pin"` too when someone else's temporary PIN started
/// the shift (``BadgeRules``). When offline shifts are on, it also carries the worker's
/// offline permit for this device (``OfflinePermits``).
///
/// The sign-in itself starts at the directory's door
/// (``DirectoryChanges/signInWithBadge(badgeHash:pin:newPin:proof:hasher:admit:attempt:)``): a key that is no enrolled shared
/// device's is refused before any PIN is checked, the PIN is checked on the ``PinHasher``'s
/// own thread in the device's environment's turn, and the store's transaction decides. Here
/// the request is read and bounded, the device's and the badge's tries are taken from their
/// limits, and the tokens are made.
struct BadgeSignIn: Sendable {
    let store: any FieldpassStore
    let changes: DirectoryChanges
    let dpop: DPoPGate
    let tokenIssuer: TokenIssuer
    let settings: BadgeSettings
    /// Tries per badge and per device (`limits.badge_sign_in`, `limits.shared_device_sign_in`),
    /// on top of the per-address limit; `nil` when limits are off.
    let badgeLimiter: RateLimiter?
    let deviceLimiter: RateLimiter?
    let hasher: PinHasher
    let offlinePermits: OfflinePermits

    init(
        store: any FieldpassStore, changes: DirectoryChanges, dpop: DPoPGate, tokenIssuer: TokenIssuer, settings: BadgeSettings,
        hasher: PinHasher, offlinePermits: OfflinePermits, badgeLimiter: RateLimiter?, deviceLimiter: RateLimiter?
    ) {
        self.store = store
        self.changes = changes
        self.hasher = hasher
        self.offlinePermits = offlinePermits
        self.dpop = dpop
        self.tokenIssuer = tokenIssuer
        self.settings = settings
        self.badgeLimiter = badgeLimiter
        self.deviceLimiter = deviceLimiter
    }

    struct SignIn: Decodable {
        var badge: String
        var pin: String
        var newPin: String?

        enum CodingKeys: String, CodingKey {
            case badge, pin
            case newPin = "new_pin"
        }
    }

    struct Tokens: ResponseEncodable {
        var accessToken: String
        var tokenType: String
        var refreshToken: String
        var expiresIn: Int
        var shiftID: String
        /// When offline shifts are on (``OfflinePermits``).
        var offlinePermit: String?

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case tokenType = "token_type"
            case refreshToken = "refresh_token"
            case expiresIn = "expires_in"
            case shiftID = "shift_id"
            case offlinePermit = "offline_permit"
        }
    }

    @Sendable func signIn(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<Tokens> {
        let body = try await JSONBody.decode(SignIn.self, from: request, context: context)
        guard body.badge.utf8.count <= 256, body.pin.utf8.count <= 64 else {
            throw APIError.invalidRequest("badge or pin is too long.")
        }
        if let newPin = body.newPin {
            do {
                try PinRules.check(newPin, length: settings.pinLength)
            } catch {
                var refused = APIError(.badRequest, BadgeErrorCode.invalidNewPin, "new_pin: \(error.description)")
                (refused.pinRule, refused.pinLength) = (error.rule, settings.pinLength)
                throw refused
            }
        }
        let proof = try dpop.requiredProof(of: request, path: SharedDeviceShiftController.shiftPath)
        let badgeHash = BadgeCredentials.digest(of: body.badge)
        let now = Date()
        let refresh = try tokenIssuer.refreshToken()
        let window = tokenIssuer.refreshWindow(from: now)
        let shiftID = UUID().uuidString.lowercased()
        let permit = try offlinePermits.issue(now: now)
        let (outcome, environmentID) = try await dpop.recordingUse {
            try await changes.signInWithBadge(badgeHash: badgeHash, pin: body.pin, newPin: body.newPin, proof: proof, hasher: hasher) { _ in
                try deviceLimiter?.take(proof.thumbprint).check()
                try badgeLimiter?.take(badgeHash).check()
            } attempt: { [settings] pin in
                BadgeAttempt(
                    badgeHash: badgeHash, checkedPinHash: pin.checked, pinMatched: pin.matched, newPinHash: pin.newPinHash,
                    proof: proof, shiftID: shiftID, refreshTokenHash: refresh.hash, refreshTokenExpiresAt: window.expiresAt,
                    refreshTokenMaxExpiresAt: window.maxExpiresAt, settings: settings, offlinePermit: permit)
            }
        }
        FieldpassMetrics.badgeSignIn(Self.result(outcome))
        switch outcome {
        case .signedIn(let shift):
            guard let environmentID,
                let facts = try await store.accessFacts(userID: shift.userID, environmentID: environmentID)
            else { throw Self.refused }
            let access = try tokenIssuer.deviceAccessToken(
                facts: facts, deviceID: shift.id, deviceKey: proof.thumbprint, shift: shift, now: now)
            let signedPermit = try permit.map { permit in
                try offlinePermits.sign(
                    id: permit.id, issuedAt: now, expiresAt: permit.expiresAt, facts: facts, keyThumbprint: proof.thumbprint, now: now)
            }
            return EditedResponse(
                headers: [.cacheControl: "no-store"],
                response: Tokens(
                    accessToken: access.token, tokenType: access.type, refreshToken: refresh.token,
                    expiresIn: tokenIssuer.accessTokenTTL, shiftID: shift.id, offlinePermit: signedPermit))
        case .refused:
            throw Self.refused
        case .wrongPin(let attemptsLeft):
            var wrong = Self.refused
            wrong.attemptsLeft = attemptsLeft
            throw wrong
        case .locked:
            throw APIError(
                Self.locked, BadgeErrorCode.badgeLocked, "This badge is locked after too many wrong PINs: ask an admin to reset the PIN.")
        case .pinChangeRequired:
            throw APIError(
                .forbidden, BadgeErrorCode.pinChangeRequired, "This PIN is temporary: send it with new_pin, the PIN to use from now on.")
        }
    }

    private static func result(_ outcome: BadgeOutcome) -> String {
        switch outcome {
        case .signedIn: "signed_in"
        case .refused: "refused"
        case .wrongPin: "wrong_pin"
        case .locked: "locked"
        case .pinChangeRequired: "pin_change_required"
        }
    }

    /// RFC 4918's 423: the badge, not the request, is what is wrong.
    static let locked = HTTPResponse.Status(code: 423, reasonPhrase: "Locked")

    static let refused = APIError(.unauthorized, OAuthErrorCode.invalidGrant, "The badge or PIN is not valid.")
}
