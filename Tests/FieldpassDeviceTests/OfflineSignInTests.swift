import Crypto
import FieldpassDevice
import Foundation
import Testing

/// Offline sign-in on a shared device with no server at all: the test is Fieldpass, signing
/// its own permits with its own key, and the device points at a port nobody listens on.
@Suite struct OfflineSignInTests {
    /// Fieldpass's signing key, as the device would fetch it from the JWKS.
    struct Issuer {
        let key = P256.Signing.PrivateKey()
        let kid = "test-key-\(UUID().uuidString)"

        var jwks: Data {
            get throws {
                let point = key.publicKey.x963Representation
                let jwk = [
                    "kty": "EC", "crv": "P-256", "use": "sig", "alg": "ES256", "kid": kid,
                    "x": Data(point.dropFirst().prefix(32)).base64URL, "y": Data(point.suffix(32)).base64URL,
                ]
                return try JSONSerialization.data(withJSONObject: ["keys": [jwk]])
            }
        }

        /// A permit for Ada on the device whose key has thumbprint `jkt`, signed by `signer`
        /// (this issuer's key unless a forger's), with `header` in place of Fieldpass's.
        func permit(
            jkt: String, expiresIn: TimeInterval = 8 * 3600, maxFailedPins: Int = 3, header: [String: String]? = nil,
            signer: P256.Signing.PrivateKey? = nil
        ) throws -> String {
            let now = Date().timeIntervalSince1970
            let claims: [String: Any] = [
                "iss": "http://127.0.0.1:8080", "sub": "user-ada", "env": "dev", "email": "ada@example.com", "role": "worker",
                "realms": ["/users/user-ada": "write", "/common": "write"], "cnf": ["jkt": jkt], "jti": "permit-\(UUID().uuidString)",
                "iat": Int(now), "exp": Int(now + expiresIn), "max_failed_pins": maxFailedPins,
            ]
            let protected = header ?? ["alg": "ES256", "kid": kid, "typ": "offline-permit+jwt"]
            let input =
                try JSONSerialization.data(withJSONObject: protected).base64URL + "."
                + JSONSerialization.data(withJSONObject: claims).base64URL
            if protected["alg"] == "none" { return input + "." }
            let signature = try (signer ?? key).signature(for: Data(input.utf8)).rawRepresentation
            return input + "." + signature.base64URL
        }
    }

    let issuer = Issuer()
    let key = SoftwareDPoPKey()
    let badge = "fpb_" + Data((0..<32).map { _ in UInt8.random(in: .min ... .max) }).base64URL
    let pin = "48151623"
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fieldpass-offline-\(UUID().uuidString)")

    /// The van's tablet with no network: a loopback port nobody listens on, and a cheap scrypt.
    func tablet(offlineStore: any OfflineStore = MemoryOfflineStore(), tokens: any TokenStore = MemoryTokenStore()) throws -> SharedDevice {
        let server = try #require(URL(string: "http://127.0.0.1:\(try FreePort.take())"))
        return SharedDevice(
            server: server, key: key, store: tokens, offlineStore: offlineStore,
            pinHashing: try ScryptParameters(cost: 1 << 10, blockSize: 8, parallelism: 1))
    }

    @Test func theRightPinStartsAnOfflineShiftWithoutATokenAndForgetsTheOnlineOne() async throws {
        let tokens = MemoryTokenStore()
        await tokens.save(TokenSet(accessToken: "the.last.shift", refreshToken: "its-refresh", expiresAt: Date() + 900))
        let van = try tablet(tokens: tokens)
        let permit = try issuer.permit(jkt: try key.thumbprint)
        try await van.keepOfflinePermit(permit, badge: badge, pin: pin, jwks: try issuer.jwks)

        let shift = try await van.signInOffline(badge: badge, pin: pin)

        #expect(shift.userID == "user-ada" && shift.email == "ada@example.com" && shift.role == "worker")
        #expect(shift.environment == "dev" && shift.realms == ["/users/user-ada": "write", "/common": "write"])
        #expect(shift.offline && !shift.permitID.isEmpty)
        #expect(try van.currentOfflineShift == shift)
        #expect(await tokens.load() == nil)
        await #expect(throws: FieldpassClientError.notSignedIn) { _ = try await van.client.accessToken() }
        try await van.endOfflineShift()
        #expect(try van.currentOfflineShift == nil)
    }

    @Test func aBadgeWithoutAPermitIsToldSo() async throws {
        let van = try tablet()
        try await van.keepOfflinePermit(try issuer.permit(jkt: try key.thumbprint), badge: badge, pin: pin, jwks: try issuer.jwks)
        await #expect(throws: OfflineSignInError.noPermit) { _ = try await van.signInOffline(badge: "fpb_another", pin: pin) }
    }

    @Test func wrongPinsCountDownToALockThatTheRightPinDoesNotOpen() async throws {
        let van = try tablet()
        let permit = try issuer.permit(jkt: try key.thumbprint, maxFailedPins: 3)
        try await van.keepOfflinePermit(permit, badge: badge, pin: pin, jwks: try issuer.jwks)

        // A right PIN starts the count again.
        await #expect(throws: OfflineSignInError.wrongPin(attemptsLeft: 2)) {
            _ = try await van.signInOffline(badge: badge, pin: "00000000")
        }
        _ = try await van.signInOffline(badge: badge, pin: pin)
        for left in [2, 1, 0] {
            await #expect(throws: OfflineSignInError.wrongPin(attemptsLeft: left)) {
                _ = try await van.signInOffline(badge: badge, pin: "1357924\(left)")
            }
        }
        await #expect(throws: OfflineSignInError.locked) { _ = try await van.signInOffline(badge: badge, pin: pin) }
    }

    @Test func aPermitOfAnotherDevicesKeyIsRefused() async throws {
        let van = try tablet()
        let permit = try issuer.permit(jkt: try SoftwareDPoPKey().thumbprint)
        try await van.keepOfflinePermit(permit, badge: badge, pin: pin, jwks: try issuer.jwks)
        await #expect(throws: OfflineSignInError.notThisDevice) { _ = try await van.signInOffline(badge: badge, pin: pin) }
    }

    @Test func anExpiredPermitIsRefused() async throws {
        let van = try tablet()
        try await van.keepOfflinePermit(
            try issuer.permit(jkt: try key.thumbprint, expiresIn: 3600), badge: badge, pin: pin, jwks: try issuer.jwks)
        await #expect(throws: OfflineSignInError.expired) { _ = try await van.signInOffline(badge: badge, pin: pin, now: Date() + 7200) }

        let lapsed = try issuer.permit(jkt: try key.thumbprint, expiresIn: -10)
        try await van.keepOfflinePermit(lapsed, badge: badge, pin: pin, jwks: try issuer.jwks)
        await #expect(throws: OfflineSignInError.expired) { _ = try await van.signInOffline(badge: badge, pin: pin) }
    }

    @Test func aPermitSignedByAnotherKeyIsRefused() async throws {
        let van = try tablet()
        // The issuer's kid, a forger's key.
        let forged = try issuer.permit(jkt: try key.thumbprint, signer: P256.Signing.PrivateKey())
        try await van.keepOfflinePermit(forged, badge: badge, pin: pin, jwks: try issuer.jwks)
        await #expect(throws: OfflineSignInError.invalidPermit) { _ = try await van.signInOffline(badge: badge, pin: pin) }
    }

    @Test func anUnsignedPermitOrAnotherKindOfTokenIsNotKept() async throws {
        let van = try tablet()
        let unsigned = try issuer.permit(jkt: try key.thumbprint, header: ["alg": "none", "kid": issuer.kid, "typ": "offline-permit+jwt"])
        await #expect(throws: OfflineSignInError.invalidPermit) {
            try await van.keepOfflinePermit(unsigned, badge: badge, pin: pin, jwks: try issuer.jwks)
        }
        let accessToken = try issuer.permit(jkt: try key.thumbprint, header: ["alg": "ES256", "kid": issuer.kid, "typ": "at+jwt"])
        await #expect(throws: OfflineSignInError.invalidPermit) {
            try await van.keepOfflinePermit(accessToken, badge: badge, pin: pin, jwks: try issuer.jwks)
        }
        await #expect(throws: OfflineSignInError.noPermit) { _ = try await van.signInOffline(badge: badge, pin: pin) }
    }

    @Test func anUnsignedPermitWrittenIntoTheFileIsRefused() async throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("offline.json").path
        let van = try tablet(offlineStore: FileOfflineStore(path: path))
        let permit = try issuer.permit(jkt: try key.thumbprint)
        try await van.keepOfflinePermit(permit, badge: badge, pin: pin, jwks: try issuer.jwks)

        // Someone with the file rewrites the permit's header as alg none, and drops the signature.
        let parts = permit.split(separator: ".")
        let none = try JSONSerialization.data(withJSONObject: ["alg": "none", "kid": issuer.kid, "typ": "offline-permit+jwt"])
        let unsigned = "\(none.base64URL).\(parts[1])."
        let kept = try String(contentsOfFile: path, encoding: .utf8)
        #expect(kept.contains(permit))
        try Data(kept.replacingOccurrences(of: permit, with: unsigned).utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)

        await #expect(throws: OfflineSignInError.invalidPermit) { _ = try await van.signInOffline(badge: badge, pin: pin) }
    }

    @Test func theKeptFileHoldsNeitherTheBadgeNorThePin() async throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("offline.json").path
        let van = try tablet(offlineStore: FileOfflineStore(path: path))
        try await van.keepOfflinePermit(try issuer.permit(jkt: try key.thumbprint), badge: badge, pin: pin, jwks: try issuer.jwks)
        await #expect(throws: OfflineSignInError.wrongPin(attemptsLeft: 2)) {
            _ = try await van.signInOffline(badge: badge, pin: "97531864")
        }
        _ = try await van.signInOffline(badge: badge, pin: pin)

        let kept = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!kept.contains(badge) && !kept.contains(String(badge.dropFirst(4))))
        #expect(!kept.contains(pin) && !kept.contains("97531864"))
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // A device restarted reads it back, and knows the shift running.
        let restarted = try tablet(offlineStore: FileOfflineStore(path: path))
        #expect(try restarted.currentOfflineShift?.userID == "user-ada")
    }
}

extension Data {
    /// base64url without padding, as JOSE writes bytes.
    fileprivate var base64URL: String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
