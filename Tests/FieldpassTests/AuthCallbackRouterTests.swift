import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import Fieldpass
@testable import FieldpassDomain
@testable import FieldpassStorage

@Suite("GET /auth_callback")
struct AuthCallbackRouterTests {
    @Test(arguments: [
        "/auth_callback",
        "/auth_callback?code=abc",
        "/auth_callback?code=abc&state=short",
        "/auth_callback?code=abc&state=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
    ])
    func missingOrUnknownStateGetsAnHTMLPageAndTouchesNothing(uri: String) async throws {
        try await TestEnvironment.with { environment in
            let (session, _) = try await environment.register()
            let before = try await environment.rowCounts()
            try await environment.application().test(.router) { client in
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .badRequest)
                    #expect(response.headers[.contentType]?.hasPrefix("text/html") == true)
                    #expect(String(buffer: response.body).contains("Sign-in link not valid"))
                }
            }
            #expect(try await environment.rowCounts() == before)
            #expect(try await environment.store.session(id: session.id)?.status == .pending)
        }
    }

    @Test func aDenialAtTheIdPFailsTheSessionOnceAndTheReplayIsRefused() async throws {
        try await TestEnvironment.with { environment in
            let (session, state) = try await environment.register()
            let uri = "/auth_callback?error=access_denied&error_description=User%20said%20no&state=\(state)"
            try await environment.application().test(.router) { client in
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .badRequest)
                    #expect(String(buffer: response.body).contains("User said no"))
                }
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .badRequest)
                    #expect(String(buffer: response.body).contains("Sign-in link not valid"))
                }
            }
            let events = try await environment.store.events(sessionID: session.id, after: 0)
            #expect(events.count == 1)
            #expect(
                try events.first?.frame() == #"{"error":"access_denied","error_description":"User said no","seq":1,"type":"login_failed"}"#)
            #expect(events.first?.isTerminal == true)
        }
    }

    @Test func hostileErrorTextIsEscapedAndCleaned() async throws {
        try await TestEnvironment.with { environment in
            let (session, state) = try await environment.register()
            let uri = "/auth_callback?error=%3Cscript%3E&error_description=%3Cb%3Ehi%3C%2Fb%3E%0A&state=\(state)"
            try await environment.application().test(.router) { client in
                try await client.execute(uri: uri, method: .get) { response in
                    let html = String(buffer: response.body)
                    #expect(!html.contains("<b>"))
                    #expect(html.contains("&lt;b&gt;hi&lt;/b&gt;"))
                }
            }
            let frame = try #require(try await environment.store.events(sessionID: session.id, after: 0).first?.frame())
            #expect(frame.contains(#""error":"invalid_request""#))
            #expect(!frame.contains("\\n"))
        }
    }

    @Test func anExpiredSessionsStateIsRefused() async throws {
        try await TestEnvironment.with { environment in
            let (_, state) = try await environment.register(expiresIn: -1)
            try await environment.application().test(.router) { client in
                try await client.execute(uri: "/auth_callback?code=abc&state=\(state)", method: .get) { response in
                    #expect(response.status == .badRequest)
                    #expect(String(buffer: response.body).contains("Sign-in link not valid"))
                }
            }
        }
    }
}
