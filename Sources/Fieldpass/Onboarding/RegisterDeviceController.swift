import FieldpassDomain
import Foundation
public import Hummingbird
import Tokens

/// `POST /register_device`: finds the email's environment and starts an onboarding session.
///
/// Everything is validated, and the IdP's discovery document fetched, before anything is
/// stored: a rejected request changes nothing.
struct RegisterDeviceController: Sendable {
    let store: any OnboardingStore
    let environments: EnvironmentDirectory
    let server: ServerSettings
    let sessions: SessionSettings
    /// Registrations one email may start, so no one can flood a mailbox or an IdP with
    /// sign-ins for someone else; nil when limits are off.
    let emailLimiter: RateLimiter?

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
            throw APIError(.serviceUnavailable, OnboardingErrorCode.idpUnavailable, "The sign-in service of this environment cannot be reached.")
        }
        if let confirmation { loginURL = "\(server.publicURL)/login/\(confirmation.loginID)" }
        let expiresAt = now.addingTimeInterval(TimeInterval(sessions.ttl))
        _ = try await store.registerDevice(
            DeviceRegistration(
                email: email.value, environmentID: environment.settings.id, deviceName: device.name,
                platform: device.platform, sessionID: sessionID, state: state, nonce: nonce,
                codeVerifier: verifier, userCode: userCode, confirmation: confirmation, now: now, expiresAt: expiresAt
            )
        )
        FieldpassMetrics.onboarding(.registered)
        var headers = HTTPFields()
        headers[.cacheControl] = "no-store"
        return EditedResponse(
            status: .created, headers: headers,
            response: RegistrationResponse(
                sessionID: sessionID, loginURL: loginURL,
                websocketURL: "\(server.publicWebSocketURL)/events?session_id=\(sessionID)",
                expiresIn: sessions.ttl, userCode: userCode
            )
        )
    }

    struct RegisterRequest: Decodable {
        var email: String
        /// Optional: the seed app posts the email alone.
        var device: DeviceInfo?
    }

    struct DeviceInfo: Decodable {
        var name: String
        var platform: String

        /// What a registration without `device` is recorded as.
        static let unnamed = DeviceInfo(name: "Unnamed device", platform: "unknown")

        /// A name a person can read (1–100 characters, no control characters) and a short
        /// lower-case platform tag such as `ios`, `android` or `cli`.
        func validated() throws -> DeviceInfo {
            let trimmedName = try DisplayName.validated(name, field: "device.name")
            let tag = platform.lowercased()
            guard (1...32).contains(tag.count),
                tag.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" })
            else {
                throw APIError.invalidRequest("device.platform must be 1 to 32 letters, digits, '-' or '_'.")
            }
            return DeviceInfo(name: trimmedName, platform: tag)
        }
    }
}

extension RegistrationResponse: ResponseEncodable {}
