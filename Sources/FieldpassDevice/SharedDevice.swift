public import Foundation

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// A device a crew shares, such as a van's tablet: enrolled once with the code an admin (or
/// the team's manager) was shown, and from then on known to Fieldpass by its DPoP key, which
/// proves every call it makes. Keep the key for as long as the device stays enrolled
/// (``FileDPoPKeyStore``, or the platform's keychain): a new key is a new device, which needs
/// a new code.
///
/// Each worker's sign-in on it starts a shift: ``signIn(email:device:appRedirectURI:appState:)``
/// runs the onboarding every app knows, and the shift's tokens, bound to the device's key, are
/// kept in the device's ``TokenStore`` for ``client`` to hand out. ``changes(after:)`` tells every
/// app on the device when a shift starts and ends, whoever ended it.
///
/// With an ``OfflineStore``, a worker who signed in here online with a badge can take the device
/// over again with no network (``signInOffline(badge:pin:now:)``), when Fieldpass hands out
/// offline permits; ``reconcileOfflineShifts()`` reports those shifts once back online.
public struct SharedDevice: Sendable {
    /// Who Fieldpass knows the device as, once enrolled.
    public struct Identity: Sendable, Equatable, Decodable {
        public let deviceID: String
        /// The id of the company's environment the device belongs to.
        public let environment: String

        enum CodingKeys: String, CodingKey {
            case environment
            case deviceID = "device_id"
        }
    }

    private let http: FieldpassHTTP
    /// The shift's tokens: ``FieldpassClient/accessToken()`` for the app's calls, and
    /// ``FieldpassClient/signOut()``, which ends the shift as ``endShift()`` does.
    public let client: FieldpassClient
    /// The offline permits and shifts, when the app gave a place to keep them.
    let offline: OfflineShifts?

    /// - Parameters:
    ///   - server: Fieldpass's public URL.
    ///   - key: the device's key, which enrolled it.
    ///   - store: where the shift's tokens are kept; in memory unless the app says otherwise.
    ///   - offlineStore: where the offline permits, the verifiers of the PINs and the offline
    ///     shifts are kept (``FileOfflineStore``); without one the device ignores offline permits
    ///     and nobody signs in offline.
    ///   - pinHashing: the cost of each PIN verifier made from now on.
    ///   - session: the `URLSession` for every call.
    public init(
        server: URL, key: any DPoPKey, store: any TokenStore = MemoryTokenStore(), offlineStore: (any OfflineStore)? = nil,
        pinHashing: ScryptParameters = .standard, session: URLSession = .shared
    ) {
        let prover = DPoPProver(key: key)
        let http = FieldpassHTTP(server: server, session: session, prover: prover)
        let client = FieldpassClient(http: http, store: store)
        self.http = http
        self.client = client
        offline = offlineStore.map { OfflineShifts(store: $0, key: key, pinHashing: pinHashing, http: http, client: client) }
    }

    /// Redeems the one-time enrollment code (as shown, typed or scanned: case, spaces and
    /// dashes do not matter) with a proof of the device's key. A wrong, used or expired code,
    /// or a key that enrolled a device before, throws `FieldpassClientError.server(400,
    /// "invalid_grant", _)`.
    public func enroll(code: String) async throws -> Identity {
        let (status, body) = try await http.postJSON("shared_devices/enroll", ["enrollment_code": code])
        guard status == 200 else { throw FieldpassHTTP.failure(status: status, body: body) }
        return try JSONDecoder().decode(Identity.self, from: body)
    }

    /// A worker signs in on the device: the onboarding of ``FieldpassClient/register(email:device:appRedirectURI:appState:)``,
    /// proven by the device's key, whose sign-in starts the worker's shift (and ends the one
    /// before, if its worker forgot to sign out). Its events are the same as on a personal
    /// phone; the tokens are the shift's.
    public func signIn(
        email: String, device: DeviceInfo? = nil, appRedirectURI: URL? = nil, appState: String? = nil
    ) async throws -> Onboarding {
        try await client.register(email: email, device: device, appRedirectURI: appRedirectURI, appState: appState)
    }

    /// A worker starts a shift with their badge (as scanned off the card) and PIN, and with
    /// `newPin` their own PIN when the one they typed is the temporary one an admin gave them.
    /// The shift's tokens, bound to the device's key, are saved in the device's ``TokenStore``
    /// for ``client``, and returned. Throws ``BadgeSignInError`` for what the worker can fix.
    ///
    /// The offline shift running on the device, if any, ends. When the answer has an offline
    /// permit, the device keeps it with a verifier of the worker's own PIN (`newPin` when sent):
    /// the shift has started by then, so a permit that cannot be kept is not an error, and the
    /// worker will need the network next time.
    public func signIn(badge: String, pin: String, newPin: String? = nil) async throws -> TokenSet {
        var body = ["badge": badge, "pin": pin]
        body["new_pin"] = newPin
        let (status, data) = try await http.postJSON("shared_devices/shift", body)
        guard status == 200 else { throw Self.badgeFailure(status: status, body: data) }
        let tokens = try TokenSet.decoding(answer: data, status: status)
        try await client.adopt(tokens)
        if let offline {
            let now = Date()
            try? await offline.endRunning(at: now)
            struct Permit: Decodable { var offline_permit: String }
            if let permit = try? JSONDecoder().decode(Permit.self, from: data).offline_permit {
                try? await offline.keep(permit: permit, badge: badge, pin: newPin ?? pin, keys: nil, now: now)
            }
        }
        return tokens
    }

    private static func badgeFailure(status: Int, body: Data) -> any Error {
        let failure = FieldpassHTTP.failure(status: status, body: body)
        switch failure {
        case .server(403, "pin_change_required", _): return BadgeSignInError.pinChangeRequired
        case .server(423, "badge_locked", _): return BadgeSignInError.badgeLocked
        case .server(400, "invalid_new_pin", _):
            struct Refusal: Decodable { var pin_rule: String, pin_length: Int }
            guard let refusal = try? JSONDecoder().decode(Refusal.self, from: body), let rule = NewPinRule(rawValue: refusal.pin_rule)
            else { return failure }
            return BadgeSignInError.newPinRefused(rule: rule, length: refusal.pin_length)
        case .server(401, "invalid_grant", _):
            struct Left: Decodable { var attempts_left: Int }
            guard let left = try? JSONDecoder().decode(Left.self, from: body) else { return failure }
            return BadgeSignInError.wrongPin(attemptsLeft: left.attempts_left)
        default: return failure
        }
    }

    /// Who holds the device now: its open shift, `nil` when nobody does. Throws
    /// ``FieldpassClientError/notEnrolled`` once the device is unenrolled.
    public var currentShift: Shift? {
        get async throws {
            let (status, body) = try await http.proven("GET", http.url("shared_devices/shift"))
            guard status == 200 else { throw try await Self.deviceFailure(status: status, body: body, client: client) }
            struct Holder: Decodable { var shift: Shift? }
            return try Shift.decoder.decode(Holder.self, from: body).shift
        }
    }

    /// The worker signs out: the shift ends (`signed_out`) with all its tokens, which the device
    /// forgets. Signing out when nobody holds the device changes nothing. Throws
    /// ``FieldpassClientError/notEnrolled`` once the device is unenrolled.
    public func endShift() async throws {
        let (status, body) = try await http.proven("DELETE", http.url("shared_devices/shift"))
        guard status == 204 else { throw try await Self.deviceFailure(status: status, body: body, client: client) }
        try await client.forgetTokens()
    }

    /// The device's shifts starting and ending, after the change numbered `after` (0: from
    /// the first), as they happen: what every app on the device follows to wipe the last
    /// worker's data at `shiftEnded`. Keep the last ``ShiftChange/seq`` handled to resume
    /// there; each change comes once, across dropped connections and server restarts. Once the
    /// device is unenrolled the sequence throws ``FieldpassClientError/notEnrolled``.
    public func changes(after: Int = 0) -> ShiftChanges {
        ShiftChanges(http: http, client: client, after: after)
    }

    /// The error an answer of the device's own routes stands for. Fieldpass refuses a key that
    /// is no enrolled device's (`403 shared_device_refused`): that is
    /// ``FieldpassClientError/notEnrolled``, and the shift's tokens, which ended with the
    /// enrollment, are forgotten.
    static func deviceFailure(status: Int, body: Data, client: FieldpassClient) async throws -> FieldpassClientError {
        let failure = FieldpassHTTP.failure(status: status, body: body)
        guard case .server(403, "shared_device_refused", _) = failure else { return failure }
        try await client.forgetTokens()
        return .notEnrolled
    }
}
