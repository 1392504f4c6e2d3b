import FieldpassDomain
import Foundation
import Hummingbird
import Logging

/// The end of a console sign-in at `/auth_callback`: the state is taken once, the browser
/// must be the one that started it, the IdP's answer passes the same checks and identity
/// binding as a device's (``IdPSignIn``), and only an admin or a manager gets a session.
struct ConsoleSignInCallback: Sendable {
    let store: any FieldpassStore
    let changes: DirectoryChanges
    let environments: EnvironmentDirectory
    let server: ServerSettings
    let settings: ConsoleSettings
    let renderer: ConsoleRenderer

    /// The answer to a callback whose `state` is a console sign-in's; `nil` when it is not one.
    func finish(state: String, request: Request, logger: Logger) async throws -> Response? {
        guard let signIn = try await store.takeConsoleSignIn(stateHash: OpaqueToken.digest(state), now: Date()),
            let environment = environments.entry(id: signIn.environmentID)
        else { return nil }
        let back = server.publicPath + "/console"
        do {
            guard BrowserBinding.matches(request, state: state, digest: signIn.browserBinding) else { throw Self.otherBrowser }
            let verified = try await IdPSignIn(environment: environment).verify(
                query: request.uri.queryParameters,
                request: IdPSignIn.Request(
                    email: signIn.email, environmentID: signIn.environmentID, nonce: signIn.nonce, codeVerifier: signIn.codeVerifier
                ),
                logger: logger
            )
            guard let person = try await knownPerson(signIn, promoteToAdmin: verified.promoteToAdmin) else {
                return renderer.message(
                    status: .forbidden, title: "Not allowed here",
                    text: "Fieldpass does not know \(signIn.email) yet. The console is for admins and managers.", back: back
                )
            }
            let facts = try await IdPSignIn.record(verified.attempt(userID: person.id), in: store, now: Date())
            guard facts.user.role.may(.read) else {
                return renderer.message(
                    status: .forbidden, title: "Not allowed here",
                    text: "The console is for admins and managers. Ask an admin if you need to use it.", back: back
                )
            }
            return try await startSession(for: facts.user)
        } catch let failure as OIDCError {
            logger.info(
                "Console sign-in failed",
                metadata: [
                    "environment": "\(signIn.environmentID)", "error": "\(LoginFailureReason.label(failure.code))",
                ])
            return renderer.message(status: .badRequest, title: "Sign-in failed", text: failure.description, back: back)
        }
    }

    /// The person the email belongs to. A bootstrap admin Fieldpass has not met yet is
    /// created here, as their first device's registration would, so a new installation's
    /// first admin can start in the console.
    private func knownPerson(_ signIn: ConsoleSignIn, promoteToAdmin: Bool) async throws -> UserRecord? {
        if let person = try await store.person(email: signIn.email, environmentID: signIn.environmentID) { return person }
        guard promoteToAdmin else { return nil }
        // The IdP signed them in: the creation is the IdP's, as at a device's first sign-in.
        return try await changes.ensurePerson(email: signIn.email, by: .idp(environmentID: signIn.environmentID))
    }

    private func startSession(for user: UserRecord) async throws -> Response {
        let cookie = try ConsoleCookie.make()
        let now = Date()
        let expiresAt = now.addingTimeInterval(TimeInterval(settings.lifetime))
        try await store.createConsoleSession(
            ConsoleSession(
                idHash: cookie.idHash, userID: user.id, environmentID: user.environmentID, createdAt: now, expiresAt: expiresAt,
                idleExpiresAt: min(expiresAt, now.addingTimeInterval(TimeInterval(settings.idleTimeout)))
            ))
        var headers: HTTPFields = [
            .location: server.publicPath + "/console/people", .setCookie: cookie.setCookie(maxAge: settings.lifetime, server: server),
        ]
        HTMLPage.secure(&headers, styles: ConsoleRenderer.styles)
        return Response(status: .seeOther, headers: headers)
    }

    private static let otherBrowser = OIDCError(
        LoginFailureReason.browserMismatch.rawValue,
        "This sign-in was started in another browser. Open the console there, or start again here."
    )
}
