import FieldpassDomain
import Foundation
import Hummingbird
import Tokens
import Logging

/// `POST /register_device`: finds the email's environment and starts an onboarding session.
///
/// Everything is validated, and the IdP's discovery document fetched, before anything is
/// stored: a rejected request changes nothing.
struct RegisterDeviceController: Sendable {
    let store: any OnboardingStore & SharedDeviceStore
    let environments: EnvironmentDirectory
    let server: ServerSettings
    let sessions: SessionSettings
    /// Registrations one email may start, so no one can flood a mailbox or an IdP with
    /// sign-ins for someone else; nil when limits are off.
    let emailLimiter: RateLimiter?
    /// A registration with a DPoP proof binds the sign-in's refresh token to the proof's key.
    let dpop: DPoPGate

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.post("register_device", use: register)
    }

    @Sendable func register(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<RegistrationResponse> {
        let body = try await JSONBody.decode(RegisterRequest.self, from: request, context: context)
        guard let email = EmailAddress(body.email) else {
            throw APIError(.badRequest, OnboardingErrorCode.invalidEmail, "email is not a valid email address.")
        }
        let device = try (body.device ?? DeviceInfo.unnamed).validated()
        guard let environment = environments.entry(forDomain: email.domain) else {
            throw APIError(.notFound, OnboardingErrorCode.unknownDomain, "No environment is configured for this email domain.")
        }
        let appReturn = try body.appReturn(allowed: environment.settings.appRedirectURIs)
        try emailLimiter?.take(email.value).check()
        let now = Date()
        let sessionID = try OpaqueToken.make()
        let state = try OpaqueToken.make()
        let nonce = try OpaqueToken.make()
        let verifier = try OpaqueToken.make()
        let userCode = try UserCode.make()
        let confirmation = environment.settings.confirmDevice ? (loginID: try OpaqueToken.make(), csrfToken: try OpaqueToken.make()) : nil
        var loginURL: String
        do {
            // Also with a confirmation page: an unreachable IdP is better said now than after it.
            loginURL = try await environment.idp.authorizationURL(
                state: state, nonce: nonce, codeChallenge: Crypto.pkceChallenge(verifier: verifier), loginHint: email.value
            )
        } catch {
            context.logger.warning("IdP discovery failed", metadata: ["environment": "\(environment.settings.id)", "reason": "\(error)"])
            throw APIError(
                .serviceUnavailable, OnboardingErrorCode.idpUnavailable, "The sign-in service of this environment cannot be reached.")
        }
        if let confirmation { loginURL = "\(server.publicURL)/login/\(confirmation.loginID)" }
        // The proof's use is recorded with the registration: it is used up only by one that
        // is stored.
        let dpopProof = try dpop.proof(of: request, path: "/register_device", required: environment.settings.dpopRequired)
        let sharedDevice = try await sharedDevice(provenBy: dpopProof, environmentID: environment.settings.id)
        let expiresAt = now.addingTimeInterval(TimeInterval(sessions.ttl))
        _ = try await dpop.recordingUse {
            try await store.registerDevice(
                DeviceRegistration(
                    email: email.value, environmentID: environment.settings.id, deviceName: sharedDevice?.name ?? device.name,
                    // A shift is a device record of its own: never one of an earlier shift.
                    platform: device.platform, installID: sharedDevice == nil ? device.installID : nil, sessionID: sessionID, state: state,
                    nonce: nonce,
                    codeVerifier: verifier, userCode: userCode, confirmation: confirmation, appReturn: appReturn,
                    dpopProof: dpopProof, now: now, expiresAt: expiresAt
                )
            )
        }
        FieldpassMetrics.onboarding(.registered)
        var headers = HTTPFields()
        headers[.cacheControl] = "no-store"
        return EditedResponse(
            status: .created, headers: headers,
            response: RegistrationResponse(
                sessionID: sessionID, loginURL: loginURL,
                websocketURL: "\(server.publicWebSocketURL)/events?session_id=\(sessionID)",
                eventsURL: "\(server.publicURL)/events/poll?session_id=\(sessionID)",
                expiresIn: sessions.ttl, userCode: userCode
            )
        )
    }

    /// The shared device whose key made the registration's proof, if it is one: the sign-in
    /// starts a shift on it. Its key is refused once it is unenrolled, and by another
    /// environment than its own.
    private func sharedDevice(provenBy proof: DPoPRules.AcceptedProof?, environmentID: String) async throws -> SharedDeviceRecord? {
        guard let proof, let device = try await store.sharedDevice(keyThumbprint: proof.thumbprint) else { return nil }
        guard device.state == .enrolled, device.environmentID == environmentID else {
            throw APIError(
                .forbidden, OnboardingErrorCode.sharedDeviceRefused,
                "This device is a shared device that is unenrolled or belongs to another company: ask your admin.")
        }
        return device
    }

    struct RegisterRequest: Decodable {
        var email: String
        /// Optional: the seed app posts the email alone.
        var device: DeviceInfo?
        /// Where the browser returns to the app when the sign-in ends (RFC 8252).
        var appRedirectURI: String?
        /// Given back to the app with the result, for it to match the answer to its request.
        var appState: String?

        enum CodingKeys: String, CodingKey {
            case email, device
            case appRedirectURI = "app_redirect_uri"
            case appState = "app_state"
        }

        /// The way back to the app: a URI of the environment's `allowed` list, exactly, and a
        /// state of 1 to 128 printable ASCII characters (RFC 6749's VSCHAR, as OAuth's own state).
        func appReturn(allowed: Set<String>) throws -> AppReturn? {
            if let appState {
                guard (1...128).contains(appState.utf8.count), appState.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else {
                    throw APIError.invalidRequest("app_state must be 1 to 128 printable ASCII characters.")
                }
            }
            guard let appRedirectURI else {
                guard appState == nil else { throw APIError.invalidRequest("app_state needs an app_redirect_uri to return to.") }
                return nil
            }
            guard allowed.contains(appRedirectURI) else {
                throw APIError.invalidRequest("app_redirect_uri is not one of this environment's app_redirect_uris.")
            }
            return AppReturn(uri: appRedirectURI, state: appState)
        }
    }

    struct DeviceInfo: Decodable {
        var name: String
        var platform: String
        /// The installation: a value the app generates once and keeps. A device is matched by
        /// it alone, never by its name or platform ("iPhone" names every iPhone).
        var installID: String?

        enum CodingKeys: String, CodingKey {
            case name, platform
            case installID = "install_id"
        }

        /// What a registration without `device` is recorded as.
        static let unnamed = DeviceInfo(name: "Unnamed device", platform: "unknown")

        /// A name a person can read (1–100 characters, no control characters), a short
        /// lower-case platform tag such as `ios`, `android` or `cli`, and an installation id of
        /// 16 to 128 URL-safe characters (RFC 4648 §5's alphabet), if any.
        func validated() throws -> DeviceInfo {
            let trimmedName = try DisplayName.validated(name, field: "device.name")
            let tag = platform.lowercased()
            guard (1...32).contains(tag.count),
                tag.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" })
            else {
                throw APIError.invalidRequest("device.platform must be 1 to 32 letters, digits, '-' or '_'.")
            }
            if let installID {
                guard (16...128).contains(installID.utf8.count), installID.utf8.allSatisfy(Self.isURLSafe) else {
                    throw APIError.invalidRequest("device.install_id must be 16 to 128 letters, digits, '-' or '_'.")
                }
            }
            return DeviceInfo(name: trimmedName, platform: tag, installID: installID)
        }

        private static func isURLSafe(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }
}

extension RegistrationResponse: ResponseEncodable {}
