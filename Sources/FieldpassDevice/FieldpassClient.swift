public import Foundation

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// The device's side of Fieldpass: onboarding, and the tokens it earns.
///
/// ```swift
/// let client = FieldpassClient(server: url, store: FileTokenStore(path: p))
/// let onboarding = try await client.register(email: "ada@example.com",
///                                            device: DeviceInfo(name: "Van 12", platform: "ios"),
///                                            appRedirectURI: nil)
/// for try await event in onboarding.events { ... }
/// let bearer = try await client.accessToken()
/// ```
///
/// Tokens live in the ``TokenStore`` only. ``accessToken()`` refreshes when the access token
/// is about to expire; callers that ask at once share one read of the store and one refresh,
/// since Fieldpass rotates refresh tokens and a second use of one would cut the device off.
/// Nothing here logs, and no error or description carries a token.
public actor FieldpassClient {
    private let http: FieldpassHTTP
    private let store: any TokenStore
    private let refreshMargin: TimeInterval
    /// What the tokens wait for: the read of the store (and the refresh it may lead to) under
    /// way, or a sign-out taking them out of the store. Every caller that needs a token meanwhile
    /// waits for it.
    private var pending: Task<TokenSet, any Error>?
    /// This installation's id, once read from the store (or made and kept there).
    private var installation: Task<String, any Error>?

    /// - Parameters:
    ///   - server: Fieldpass's public URL.
    ///   - store: where the tokens are kept.
    ///   - dpopKey: the device's DPoP key (RFC 9449), if it proves its tokens: every
    ///     registration, refresh and sign-out then carries a proof signed by it, with the nonce
    ///     Fieldpass sent last, and a registration binds the tokens to it. Keep the same key for
    ///     as long as the tokens: they are worth nothing without it.
    ///   - refreshMargin: how long before its expiry an access token is replaced.
    ///   - session: the `URLSession` for every call.
    public init(
        server: URL, store: any TokenStore, dpopKey: (any DPoPKey)? = nil, refreshMargin: TimeInterval = 60,
        session: URLSession = .shared
    ) {
        self.init(
            http: FieldpassHTTP(server: server, session: session, prover: dpopKey.map { DPoPProver(key: $0) }), store: store,
            refreshMargin: refreshMargin)
    }

    /// A client whose calls go through `http`: a shared device's, proven by its key.
    init(http: FieldpassHTTP, store: any TokenStore, refreshMargin: TimeInterval = 60) {
        self.http = http
        self.store = store
        self.refreshMargin = refreshMargin
    }

    /// Starts onboarding the worker with `email` (`POST /register_device`).
    ///
    /// With `appRedirectURI` (one of the environment's `app_redirect_uris`), the browser is
    /// sent there when the sign-in ends, with `result`, `error` and `appState` in its query:
    /// what ends an `ASWebAuthenticationSession`. Throws ``FieldpassClientError/server(status:error:description:)``
    /// when Fieldpass refuses (`unknown_domain`, `invalid_email`, `rate_limited`, ...).
    public func register(
        email: String, device: DeviceInfo? = nil, appRedirectURI: URL? = nil, appState: String? = nil
    ) async throws -> Onboarding {
        let named = device ?? DeviceInfo.unnamed
        var body: [String: Any] = ["email": email]
        body["device"] = ["name": named.name, "platform": named.platform, "install_id": try await installationID()]
        if let appRedirectURI { body["app_redirect_uri"] = appRedirectURI.absoluteString }
        if let appState { body["app_state"] = appState }
        let (status, data) = try await http.postJSON("register_device", body)
        guard status == 201 else { throw FieldpassHTTP.failure(status: status, body: data) }
        struct Registration: Decodable {
            var login_url: URL
            var events_url: URL
            var expires_in: Int
            var user_code: String
        }
        guard let registration = try? JSONDecoder().decode(Registration.self, from: data) else {
            throw FieldpassClientError.unexpectedResponse(status: status)
        }
        let expiresAt = Date().addingTimeInterval(TimeInterval(registration.expires_in))
        return Onboarding(
            userCode: registration.user_code, loginURL: registration.login_url, expiresAt: expiresAt,
            events: OnboardingEvents(http: http, eventsURL: registration.events_url, store: store, expiresAt: expiresAt)
        )
    }

    /// A valid access token for `Authorization: Bearer`, refreshed first when it expires
    /// within the margin. Throws ``FieldpassClientError/notSignedIn`` before onboarding and
    /// ``FieldpassClientError/deviceRevoked`` when Fieldpass refuses the refresh token.
    public func accessToken() async throws -> String {
        // Joined or claimed before the first suspension. A caller that read the store first
        // could get its answer after another caller's whole refresh, and then use the refresh
        // token that refresh used up: Fieldpass would take it for theft.
        if let pending { return try await pending.value.accessToken }
        // A task of its own, so that a refresh finishes and its rotated token is saved even
        // when the caller that started it is cancelled: the old one is used up either way.
        let current = Task { try await self.currentTokens() }
        pending = current
        // A sign-out may have claimed it meanwhile: that claim stays.
        defer { if pending == current { pending = nil } }
        return try await current.value.accessToken
    }

    /// A DPoP proof for the app's own call to `url` with `accessToken`, for a server that binds
    /// access tokens to the key (Fieldpass's `dpop.bind_access_tokens`: the token's claims hold
    /// `cnf.jkt`): send the token as `Authorization: DPoP <token>` and this as the `DPoP` header.
    /// It carries the nonce Fieldpass sent last; `nil` when the client has no key.
    public nonisolated func dpopProof(method: String, url: URL, accessToken: String) async throws -> String? {
        guard let prover = http.prover else { return nil }
        return try await prover.builder.proof(method: method, url: url, accessToken: accessToken, nonce: prover.nonce)
    }

    /// This installation's id (``TokenStore/loadInstallationID()``), made and kept the first
    /// time: Fieldpass knows the device by it, so every registration of this installation is
    /// the same device and each sign-in replaces the last one's refresh token. Claimed before
    /// the first suspension, so two registrations at once make one id, not two devices.
    private func installationID() async throws -> String {
        if let installation { return try await installation.value }
        let made = Task { [store] in
            if let known = try await store.loadInstallationID() { return known }
            let id = Self.newInstallationID()
            try await store.saveInstallationID(id)
            return id
        }
        installation = made
        do {
            return try await made.value
        } catch {
            // A store that failed may work next time.
            installation = nil
            throw error
        }
    }

    /// 256 random bits, base64url without padding: 43 URL-safe characters.
    private static func newInstallationID() -> String {
        Data.random(count: 32).base64URLEncoded
    }

    /// Signs the device out: forgets the tokens, then revokes the refresh token at Fieldpass
    /// (RFC 7009), which revokes the device and its access tokens. The tokens are forgotten
    /// even when Fieldpass cannot be reached; the error then says so.
    ///
    /// A refresh under way finishes first, and the tokens it saves are the ones revoked; callers
    /// that ask for a token meanwhile get ``FieldpassClientError/notSignedIn``.
    public func signOut() async throws {
        guard let tokens = try await takeTokens() else { return }
        let (status, data) = try await http.postForm("revoke", ["token": tokens.refreshToken, "token_type_hint": "refresh_token"])
        guard status == 200 else { throw FieldpassHTTP.failure(status: status, body: data) }
    }

    /// Keeps `tokens`, which Fieldpass issued outside an onboarding (a badge sign-in on a shared
    /// device), in place of any: a refresh under way finishes first, and callers that ask for a
    /// token meanwhile get these.
    func adopt(_ tokens: TokenSet) async throws {
        let refreshing = pending
        let adopted = Task { [store] () async throws -> TokenSet in
            _ = await refreshing?.result
            try await store.save(tokens)
            return tokens
        }
        pending = adopted
        defer { if pending == adopted { pending = nil } }
        _ = try await adopted.value
    }

    /// Forgets the tokens, which Fieldpass ended already (a shared device's shift), as
    /// ``signOut()`` does before it revokes them.
    func forgetTokens() async throws {
        _ = try await takeTokens()
    }

    /// Whether the store holds tokens, once a refresh or sign-out under way has finished.
    func holdsTokens() async throws -> Bool {
        let before = pending
        _ = await before?.result
        return try await store.load() != nil
    }

    /// Takes the tokens out of the store, `nil` when there were none. A refresh under way
    /// finishes first, and the tokens it saves are the ones taken; callers that ask for a token
    /// meanwhile get ``FieldpassClientError/notSignedIn``.
    private func takeTokens() async throws -> TokenSet? {
        // Queued behind the refresh under way, and claimed, before the first suspension. A
        // sign-out that read the store while a refresh ran would revoke the token that refresh
        // used up, and the refresh would then save the new tokens of a revoked device into the
        // store just cleared; a refresh started meanwhile would use the token being revoked.
        let refreshing = pending
        let taken = Task { [store] () async throws -> TokenSet? in
            _ = await refreshing?.result
            guard let tokens = try await store.load() else { return nil }
            try await store.clear()
            return tokens
        }
        let signedOut = Task<TokenSet, any Error> {
            _ = try await taken.value
            throw FieldpassClientError.notSignedIn
        }
        pending = signedOut
        let result = await taken.result
        // Out of the store (or not, if it failed): callers read it again from now on.
        if pending == signedOut { pending = nil }
        return try result.get()
    }

    /// The stored tokens, refreshed first when the access token expires within the margin.
    private func currentTokens() async throws -> TokenSet {
        guard let tokens = try await store.load() else { throw FieldpassClientError.notSignedIn }
        if tokens.expiresAt.timeIntervalSinceNow > refreshMargin { return tokens }
        return try await refresh(tokens)
    }

    /// One refresh (`grant_type=refresh_token`): the rotated tokens are saved before anyone
    /// gets the new access token.
    private func refresh(_ tokens: TokenSet) async throws -> TokenSet {
        let (status, data) = try await http.postForm("token", ["grant_type": "refresh_token", "refresh_token": tokens.refreshToken])
        guard status == 200 else {
            let failure = FieldpassHTTP.failure(status: status, body: data)
            if case .server(_, "invalid_grant", _) = failure {
                try await store.clear()
                throw FieldpassClientError.deviceRevoked
            }
            throw failure
        }
        let next = try TokenSet.decoding(answer: data, status: status)
        try await store.save(next)
        return next
    }
}
