import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import Testing
import Tokens
@testable import Fieldpass
@testable import FieldpassDomain
@testable import FieldpassStorage
import NIOFoundationEssentialsCompat

@Suite("Device confirmation page")
struct DeviceConfirmationRouterTests {
    /// What a browser holds after `GET login_url`: the page's form token and its cookie.
    struct OpenedPage {
        let path: String
        let html: String
        let csrfToken: String
        let setCookie: String
    }

    static let formHeaders: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]

    /// Registers with the email alone; returns the answer's login URL and user code.
    static func register(_ client: some TestClientProtocol) async throws -> (url: URLComponents, userCode: String) {
        try await client.execute(
            uri: "/register_device", method: .post, headers: RegisterDeviceRouterTests.jsonHeaders,
            body: ByteBuffer(string: #"{"email": "alice@example.com"}"#)
        ) { response in
            #expect(response.status == .created)
            let answer = try JSONDecoder().decode([String: JSONScalar].self, from: Data(buffer: response.body))
            let loginURL = try #require(answer["login_url"]?.string.flatMap(URLComponents.init(string:)))
            return (loginURL, try #require(answer["user_code"]?.string))
        }
    }

    static func open(_ path: String, _ client: some TestClientProtocol) async throws -> OpenedPage {
        try await client.execute(uri: path, method: .get) { response in
            #expect(response.status == .ok)
            let html = String(buffer: response.body)
            let field = try #require(html.firstMatch(of: /name="csrf_token" value="([A-Za-z0-9_-]{43})"/))
            return OpenedPage(
                path: path, html: html, csrfToken: String(field.1), setCookie: response.headers[.setCookie] ?? ""
            )
        }
    }

    static func post(_ page: OpenedPage, form: String, cookie: String?, _ client: some TestClientProtocol) async throws -> TestResponse {
        var headers = formHeaders
        if let cookie { headers[.cookie] = "fieldpass_confirm=\(cookie)" }
        return try await client.execute(uri: page.path, method: .post, headers: headers, body: ByteBuffer(string: form)) { $0 }
    }

    static func confirmedAt(_ environment: TestEnvironment) async throws -> [Double?] {
        try await #require(environment.store as? SQLiteStore).pool.read { db in
            try Optional<Double>.fetchAll(db, sql: "SELECT confirmed_at FROM sessions")
        }
    }

    @Test func theLinkLeadsThroughThePageToTheIdPOnce() async throws {
        try await FakeDiscoveryServer.run { issuer in
            try await TestEnvironment.with(issuer: issuer) { environment in
                try await environment.application().test(.router) { client in
                    let (url, userCode) = try await Self.register(client)
                    let path = url.path
                    #expect(url.host == "fieldpass.test")
                    #expect(path.wholeMatch(of: /\/login\/[A-Za-z0-9_-]{43}/) != nil)

                    let page = try await Self.open(path, client)
                    #expect(page.html.contains(#"<p class="code">\#(userCode)</p>"#))
                    #expect(page.html.contains("Unnamed device (unknown)"))
                    #expect(page.setCookie.hasPrefix("fieldpass_confirm=\(page.csrfToken);"))
                    #expect(page.setCookie.contains("HttpOnly") && page.setCookie.contains("SameSite=Strict"))
                    #expect(page.setCookie.contains("Path=\(path)"))

                    let confirmed = try await Self.post(page, form: "csrf_token=\(page.csrfToken)", cookie: page.csrfToken, client)
                    #expect(confirmed.status == .seeOther)
                    let location = try #require(confirmed.headers[.location].flatMap(URLComponents.init(string:)))
                    #expect(location.path == "/authorize")
                    let query = Dictionary(uniqueKeysWithValues: (location.queryItems ?? []).map { ($0.name, $0.value ?? "") })
                    #expect(query["login_hint"] == "alice@example.com")
                    #expect(query["state"]?.count == 43)
                    #expect(query["prompt"] == nil)

                    // Used up: neither the page nor its form leads anywhere again.
                    try await client.execute(uri: path, method: .get) { #expect($0.status == .gone) }
                    let again = try await Self.post(page, form: "csrf_token=\(page.csrfToken)", cookie: page.csrfToken, client)
                    #expect(again.status == .gone)
                    #expect(again.headers[.location] == nil)
                }
            }
        }
    }

    /// Whether the IdP sends a code or its refusal, the other browser's callback fails the same way.
    @Test(arguments: ["code=abc", "error=access_denied"])
    func theCallbackOfAConfirmedSessionNeedsTheBrowserThatConfirmed(answer: String) async throws {
        try await FakeDiscoveryServer.run { issuer in
            try await TestEnvironment.with(issuer: issuer) { environment in
                try await environment.application().test(.router) { client in
                    let page = try await Self.open(try await Self.register(client).url.path, client)
                    let confirmed = try await Self.post(page, form: "csrf_token=\(page.csrfToken)", cookie: page.csrfToken, client)
                    let binding = try #require(confirmed.headers[.setCookie])
                    #expect(binding.hasPrefix("fieldpass_signin_"))
                    #expect(binding.contains("Path=/auth_callback") && binding.contains("HttpOnly") && binding.contains("SameSite=Lax"))
                    let location = try #require(confirmed.headers[.location].flatMap(URLComponents.init(string:)))
                    let state = try #require(location.queryItems?.first { $0.name == "state" }?.value)

                    // Another browser brings the IdP's answer back, with another value in the cookie.
                    let forwarded = "/auth_callback?\(answer)&state=\(state)"
                    let other = "\(BrowserBinding.cookieName(state: state))=\(String(repeating: "D", count: 43))"
                    try await client.execute(uri: forwarded, method: .get, headers: [.cookie: other]) { response in
                        #expect(response.status == .badRequest)
                        #expect(String(buffer: response.body).contains("device that started it"))
                    }
                }
                let store = try #require(environment.store as? SQLiteStore)
                let stored = try await store.pool.read { db in try String.fetchOne(db, sql: "SELECT id FROM sessions") }
                let sessionID = try #require(stored)
                let events = try await environment.store.events(sessionID: sessionID, after: 0)
                #expect(try events.first?.frame().contains(#""error":"browser_mismatch""#) == true)
                let entry = try await environment.store.auditLog(environmentID: "dev", before: nil, limit: 1).first
                #expect(entry?.action == "login.browser_mismatch" && entry?.actor == "browser")
            }
        }
    }

    /// Form bodies and cookies that did not come from the page in this browser.
    static let forgeries: [(form: String, cookie: String?)] = [
        ("", "{csrf}"),
        ("csrf_token=", "{csrf}"),
        ("csrf_token=\(String(repeating: "A", count: 43))", "{csrf}"),
        ("csrf_token={csrf}", nil),
        ("csrf_token={csrf}", String(repeating: "B", count: 43)),
        ("csrf_token=\(String(repeating: "C", count: 43))", String(repeating: "C", count: 43)),
    ]

    @Test(arguments: forgeries.indices)
    func aForgedConfirmationIsRefusedAndChangesNothing(forgery: Int) async throws {
        try await FakeDiscoveryServer.run { issuer in
            try await TestEnvironment.with(issuer: issuer) { environment in
                try await environment.application().test(.router) { client in
                    let page = try await Self.open(try await Self.register(client).url.path, client)
                    let (form, cookie) = Self.forgeries[forgery]
                    let fill = { (text: String) in text.replacingOccurrences(of: "{csrf}", with: page.csrfToken) }

                    let refused = try await Self.post(page, form: fill(form), cookie: cookie.map(fill), client)

                    #expect(refused.status == .badRequest)
                    #expect(refused.headers[.location] == nil)
                    #expect(try await Self.confirmedAt(environment) == [nil])
                    let genuine = try await Self.post(page, form: "csrf_token=\(page.csrfToken)", cookie: page.csrfToken, client)
                    #expect(genuine.status == .seeOther)
                }
            }
        }
    }

    @Test(arguments: ["/login/\(String(repeating: "x", count: 43))", "/login/short", "/login/%00"])
    func anUnknownLinkIsNotFound(path: String) async throws {
        try await TestEnvironment.with { environment in
            try await environment.application().test(.router) { client in
                try await client.execute(uri: path, method: .get) { response in
                    #expect(response.status == .notFound)
                    #expect(response.headers[.contentType]?.hasPrefix("text/html") == true)
                }
            }
        }
    }

    @Test func aStateIsRefusedUntilItsSessionIsConfirmed() async throws {
        try await TestEnvironment.with { environment in
            let store = environment.store
            let state = try Crypto.randomToken()
            let (loginID, csrf) = (try Crypto.randomToken(), try Crypto.randomToken())
            _ = try await store.registerDevice(
                DeviceRegistration(
                    email: "alice@example.com", environmentID: "dev", deviceName: "Pixel", platform: "android",
                    sessionID: try Crypto.randomToken(), state: state, nonce: "n", codeVerifier: "v", userCode: "BCDF-GHJK",
                    confirmation: (loginID, csrf), now: Date(), expiresAt: Date().addingTimeInterval(600)
                )
            )

            #expect(try await store.consumeState(state, now: Date()) == nil)
            #expect(try await store.confirmDevice(loginID: loginID, csrfToken: "wrong", browserBinding: "binding", now: Date()) == .forged)
            guard case .confirmed = try await store.confirmDevice(loginID: loginID, csrfToken: csrf, browserBinding: "binding", now: Date())
            else {
                Issue.record("the session's own token did not confirm it")
                return
            }
            #expect(try await store.confirmDevice(loginID: loginID, csrfToken: csrf, browserBinding: "binding", now: Date()) == .used)
            #expect(try await store.consumeState(state, now: Date()) != nil)
        }
    }

    @Test func theConfiguredPromptGoesToTheIdP() async throws {
        try await FakeDiscoveryServer.run { issuer in
            let settings = ["ENVIRONMENTS_DEV_CONFIRM_DEVICE": "false", "ENVIRONMENTS_DEV_IDP_PROMPT": "login"]
            try await TestEnvironment.with(issuer: issuer, extraEnvironment: settings) { environment in
                try await environment.application().test(.router) { client in
                    let (url, _) = try await Self.register(client)
                    #expect(url.path == "/authorize")
                    #expect(url.queryItems?.first { $0.name == "prompt" }?.value == "login")
                }
            }
        }
    }

    /// Some IdPs' issuers end in `/`: configured so, discovery and the comparison use it as written.
    @Test(arguments: [("/", "/", HTTPResponse.Status.created), ("/", "", .serviceUnavailable), ("", "/", .serviceUnavailable)])
    func anIssuerIsComparedExactly(configured: String, published: String, status: HTTPResponse.Status) async throws {
        try await FakeDiscoveryServer.run(issuerSuffix: published) { issuer in
            try await TestEnvironment.with(issuer: issuer + configured) { environment in
                try await environment.application().test(.router) { client in
                    try await client.execute(
                        uri: "/register_device", method: .post, headers: RegisterDeviceRouterTests.jsonHeaders,
                        body: ByteBuffer(string: #"{"email": "alice@example.com"}"#)
                    ) { #expect($0.status == status) }
                }
            }
        }
    }
}
