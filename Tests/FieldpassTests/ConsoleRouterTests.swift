import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import Tokens
@testable import Fieldpass
@testable import FieldpassDomain

/// The console's doors: its sign-in form, its session cookie and its anti-CSRF tokens.
/// Sessions are made straight in the store here; the browser e2e suite signs in through a real IdP.
@Suite("Admin console")
struct ConsoleRouterTests {
    static let formHeaders: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]

    /// A live console session for `user`; returns its cookie.
    static func session(
        for user: UserRecord, in environment: TestEnvironment, idleFor idle: TimeInterval = 1800, lasting lifetime: TimeInterval = 43_200
    ) async throws -> ConsoleCookie {
        let cookie = try ConsoleCookie.make()
        let now = Date()
        try await environment.store.createConsoleSession(
            ConsoleSession(
                idHash: cookie.idHash, userID: user.id, environmentID: user.environmentID, createdAt: now,
                expiresAt: now.addingTimeInterval(lifetime), idleExpiresAt: now.addingTimeInterval(idle)
            ))
        return cookie
    }

    static func get(_ path: String, _ cookie: ConsoleCookie?, _ client: some TestClientProtocol) async throws -> TestResponse {
        var headers: HTTPFields = [:]
        if let cookie { headers[.cookie] = "\(ConsoleCookie.name)=\(cookie.value)" }
        return try await client.execute(uri: path, method: .get, headers: headers) { $0 }
    }

    static func post(_ path: String, form: String, _ cookie: ConsoleCookie?, _ client: some TestClientProtocol) async throws -> TestResponse
    {
        var headers = formHeaders
        if let cookie { headers[.cookie] = "\(ConsoleCookie.name)=\(cookie.value)" }
        return try await client.execute(uri: path, method: .post, headers: headers, body: ByteBuffer(string: form)) { $0 }
    }

    /// The page's HTML without the break opportunities (`<wbr>`) put between the parts of an email.
    static func text(_ response: TestResponse) -> String {
        String(buffer: response.body).replacingOccurrences(of: "<wbr>", with: "")
    }

    static func expectBrowserHeaders(_ response: TestResponse) {
        let policy = response.headers[.contentSecurityPolicy] ?? ""
        #expect(policy.contains("default-src 'none'") && policy.contains("frame-ancestors 'none'"))
        #expect(!policy.contains("script-src") && !policy.contains("unsafe-inline"))
        #expect(response.headers[.cacheControl] == "no-store")
    }

    @Test func theSignInFormSendsTheBrowserToTheIdPWithPKCEAndABinding() async throws {
        try await FakeDiscoveryServer.run { issuer in
            try await TestEnvironment.with(issuer: issuer) { environment in
                try await environment.application().test(.router) { client in
                    let page = try await Self.get("/console", nil, client)
                    #expect(page.status == .ok)
                    Self.expectBrowserHeaders(page)
                    let html = String(buffer: page.body)
                    let token = String(try #require(html.firstMatch(of: /name="csrf_token" value="([A-Za-z0-9_-]{43})"/)).1)
                    #expect(html.contains(#"<label for="email">"#))

                    var headers = Self.formHeaders
                    headers[.cookie] = "\(ConsoleSignInController.formCookieName)=\(token)"
                    let started = try await client.execute(
                        uri: "/console/sign-in", method: .post, headers: headers,
                        body: ByteBuffer(string: "csrf_token=\(token)&email=Boss%40Example.com")
                    ) { $0 }
                    #expect(started.status == .seeOther)
                    Self.expectBrowserHeaders(started)
                    let location = try #require(started.headers[.location].flatMap(URLComponents.init(string:)))
                    let query = Dictionary(uniqueKeysWithValues: (location.queryItems ?? []).map { ($0.name, $0.value ?? "") })
                    #expect(location.path == "/authorize")
                    #expect(query["login_hint"] == "boss@example.com")
                    #expect(query["code_challenge_method"] == "S256" && query["nonce"]?.count == 43)
                    #expect(query["redirect_uri"] == "http://fieldpass.test/auth_callback")
                    let state = try #require(query["state"])
                    #expect(started.headers[.setCookie]?.hasPrefix(BrowserBinding.cookieName(state: state) + "=") == true)
                    let signIn = try await environment.store.takeConsoleSignIn(stateHash: OpaqueToken.digest(state), now: Date())
                    #expect(signIn?.email == "boss@example.com")

                    // The same form without its cookie did not come from this browser's page.
                    let forged = try await Self.post("/console/sign-in", form: "csrf_token=\(token)&email=boss%40example.com", nil, client)
                    #expect(forged.status == .forbidden)
                }
            }
        }
    }

    @Test func aFormPostNeedsItsOwnSessionsTokenAndChangesNothingWithout() async throws {
        try await TestEnvironment.with { environment in
            let (admin, _) = try await environment.person("boss@example.com", role: .admin)
            let (other, _) = try await environment.person("ada@example.com", role: .admin)
            let cookie = try await Self.session(for: admin, in: environment)
            let otherCookie = try await Self.session(for: other, in: environment)
            try await environment.application().test(.router) { client in
                let people = try await Self.get("/console/people", cookie, client)
                #expect(people.status == .ok)
                Self.expectBrowserHeaders(people)
                #expect(Self.text(people).contains("ada@example.com"))

                for form in ["name=Night+shift", "name=Night+shift&csrf_token=", "name=Night+shift&csrf_token=\(otherCookie.formToken)"] {
                    let refused = try await Self.post("/console/teams", form: form, cookie, client)
                    #expect(refused.status == .forbidden)
                }
                #expect(try await environment.store.teams(environmentID: "dev").isEmpty)

                let made = try await Self.post("/console/teams", form: "name=Night+shift&csrf_token=\(cookie.formToken)", cookie, client)
                #expect(made.status == .seeOther && made.headers[.location] == "/console/teams")
                #expect(try await environment.store.teams(environmentID: "dev").map(\.name) == ["Night shift"])
                let entry = try #require(try await environment.store.auditLog(environmentID: "dev", before: nil, limit: 1).first)
                #expect(entry.actor == "console:\(admin.id)" && entry.action == "team.create")
            }
        }
    }

    @Test func errorsAreConsolePagesAndRedirectsCarryThePagesHeaders() async throws {
        try await TestEnvironment.with { environment in
            let (admin, _) = try await environment.person("boss@example.com", role: .admin)
            let cookie = try await Self.session(for: admin, in: environment)
            try await environment.application().test(.router) { client in
                let badID = try await Self.post("/console/teams/a_b/rename", form: "name=X&csrf_token=\(cookie.formToken)", cookie, client)
                let unknown = try await Self.get("/console/people/no-such-person", cookie, client)
                let huge = String(repeating: "x", count: ConsoleForm.maxSize + 1)
                let tooLarge = try await Self.post("/console/teams", form: "name=\(huge)&csrf_token=\(cookie.formToken)", cookie, client)
                let signInTooLarge = try await Self.post("/console/sign-in", form: "email=\(huge)", nil, client)
                for (response, status) in [
                    (badID, HTTPResponse.Status.notFound), (unknown, .notFound), (tooLarge, .contentTooLarge),
                    (signInTooLarge, .contentTooLarge),
                ] {
                    #expect(response.status == status)
                    #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                    #expect(String(buffer: response.body).lowercased().contains("<h1>\(status.reasonPhrase.lowercased())</h1>"))
                    Self.expectBrowserHeaders(response)
                }
                let made = try await Self.post("/console/teams", form: "name=Day&csrf_token=\(cookie.formToken)", cookie, client)
                #expect(made.status == .seeOther)
                Self.expectBrowserHeaders(made)
                #expect(try await environment.store.teams(environmentID: "dev").map(\.name) == ["Day"])
            }
        }
    }

    @Test func aManagerReadsButNoChangeFormIsShownOrAccepted() async throws {
        try await TestEnvironment.with { environment in
            let (manager, _) = try await environment.person("mia@example.com", role: .manager)
            let (worker, _) = try await environment.person("wes@example.com", role: .worker)
            let cookie = try await Self.session(for: manager, in: environment)
            try await environment.application().test(.router) { client in
                let page = try await Self.get("/console/people/\(worker.id)", cookie, client)
                #expect(page.status == .ok)
                let html = String(buffer: page.body)
                #expect(Self.text(page).contains("<h1>wes@example.com</h1>"))
                // The only form is the sign-out's.
                #expect(html.components(separatedBy: "<form").count == 2)

                let refused = try await Self.post(
                    "/console/people/\(worker.id)/role", form: "role=admin&csrf_token=\(cookie.formToken)", cookie, client)
                #expect(refused.status == .forbidden)
                #expect(try await environment.store.user(id: worker.id, environmentID: "dev")?.role == .worker)
                #expect(try await Self.get("/console/audit", cookie, client).status == .forbidden)
            }
        }
    }

    @Test func aSessionEndsWhenIdleDisabledOrNoLongerStaff() async throws {
        try await TestEnvironment.with { environment in
            let (admin, _) = try await environment.person("boss@example.com", role: .admin)
            let (manager, _) = try await environment.person("mia@example.com", role: .manager)
            let (demoted, _) = try await environment.person("dee@example.com", role: .manager)
            let idle = try await Self.session(for: admin, in: environment, idleFor: -1)
            let disabled = try await Self.session(for: manager, in: environment)
            let worker = try await Self.session(for: demoted, in: environment)
            _ = try await environment.store.setDisabled(true, userID: manager.id, by: .cli(environmentID: "dev"), now: Date())
            _ = try await environment.store.setRole(
                .worker, userID: demoted.id, by: .cli(environmentID: "dev"), managed: .none, now: Date())
            try await environment.application().test(.router) { client in
                for cookie in [idle, disabled, worker, try ConsoleCookie.make()] {
                    let response = try await Self.get("/console/people", cookie, client)
                    #expect(response.status == .seeOther && response.headers[.location] == "/console")
                    #expect(response.headers[.setCookie]?.contains("Max-Age=0") == true)
                    Self.expectBrowserHeaders(response)
                }
            }
        }
    }

    @Test func signingOutEndsTheSessionAndTheCookieHasItsFlags() async throws {
        try await TestEnvironment.with { environment in
            let (admin, _) = try await environment.person("boss@example.com", role: .admin)
            let cookie = try await Self.session(for: admin, in: environment)
            let flags = cookie.setCookie(maxAge: 60, server: environment.configuration.server)
            #expect(
                flags.contains("HttpOnly") && flags.contains("SameSite=Lax") && flags.contains("Path=/console") && !flags.contains("Secure")
            )
            try await environment.application().test(.router) { client in
                let out = try await Self.post("/console/sign-out", form: "csrf_token=\(cookie.formToken)", cookie, client)
                #expect(out.status == .seeOther)
                Self.expectBrowserHeaders(out)
                #expect(try await Self.get("/console/people", cookie, client).status == .seeOther)
            }
        }
    }
}
