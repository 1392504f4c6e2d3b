import Foundation
import Hummingbird
import HummingbirdTesting
import NIOFoundationEssentialsCompat
import Testing
@testable import Fieldpass
@testable import FieldpassDomain
@testable import FieldpassStorage

@Suite("POST /register_device")
struct RegisterDeviceRouterTests {
    static let jsonHeaders: HTTPFields = [.contentType: "application/json"]

    @Test(arguments: [
        (#"not json"#, HTTPResponse.Status.badRequest, "invalid_request"),
        (#"[1, 2]"#, .badRequest, "invalid_request"),
        (#"{"device": {"name": "x", "platform": "ios"}}"#, .badRequest, "invalid_request"),
        (#"{"email": 42, "device": {"name": "x", "platform": "ios"}}"#, .badRequest, "invalid_request"),
        (#"{"email": "a@example.com", "device": "phone"}"#, .badRequest, "invalid_request"),
        (#"{"email": "a@example.com", "device": {"name": "", "platform": "ios"}}"#, .badRequest, "invalid_request"),
        (#"{"email": "a@example.com", "device": {"name": "x", "platform": "i o s"}}"#, .badRequest, "invalid_request"),
        (#"{"email": "not-an-email", "device": {"name": "x", "platform": "ios"}}"#, .badRequest, "invalid_email"),
        (#"{"email": "a b@example.com", "device": {"name": "x", "platform": "ios"}}"#, .badRequest, "invalid_email"),
        (#"{"email": "alice@unknown.test", "device": {"name": "x", "platform": "ios"}}"#, .notFound, "unknown_domain"),
    ])
    func badBodiesGetAJSONErrorAndStoreNothing(body: String, status: HTTPResponse.Status, code: String) async throws {
        try await TestEnvironment.with { environment in
            let before = try await environment.rowCounts()
            try await environment.application().test(.router) { client in
                try await client.execute(
                    uri: "/register_device", method: .post, headers: Self.jsonHeaders, body: ByteBuffer(string: body)
                ) { response in
                    #expect(response.status == status)
                    let error = try JSONDecoder().decode([String: String].self, from: Data(buffer: response.body))
                    #expect(error["error"] == code)
                    #expect(error["error_description"]?.isEmpty == false)
                }
            }
            #expect(try await environment.rowCounts() == before)
        }
    }

    @Test func aHugeBodyIsRefusedWith413() async throws {
        try await TestEnvironment.with { environment in
            let huge = #"{"email": ""# + String(repeating: "a", count: 1 << 20) + #"@example.com"}"#
            try await environment.application().test(.router) { client in
                try await client.execute(
                    uri: "/register_device", method: .post, headers: Self.jsonHeaders, body: ByteBuffer(string: huge)
                ) { response in
                    #expect(response.status == .contentTooLarge)
                    #expect(String(buffer: response.body).contains(#""error":"payload_too_large""#))
                }
            }
            #expect(try await environment.rowCounts().values.allSatisfy { $0 == 0 })
        }
    }

    @Test func aFormBodyIsRefusedWith415() async throws {
        try await TestEnvironment.with { environment in
            try await environment.application().test(.router) { client in
                try await client.execute(
                    uri: "/register_device", method: .post,
                    headers: [.contentType: "application/x-www-form-urlencoded"], body: ByteBuffer(string: "email=a@example.com")
                ) { response in
                    #expect(response.status == .unsupportedMediaType)
                }
            }
        }
    }

    @Test func anIdPWithoutDiscoveryGets503AndStoresNothing() async throws {
        try await FakeDiscoveryServer.run { issuer in
            // Discovery under this issuer answers 404.
            try await TestEnvironment.with(issuer: issuer + "/elsewhere") { environment in
                let body = #"{"email": "alice@example.com", "device": {"name": "Pixel", "platform": "android"}}"#
                try await environment.application().test(.router) { client in
                    try await client.execute(
                        uri: "/register_device", method: .post, headers: Self.jsonHeaders, body: ByteBuffer(string: body)
                    ) { response in
                        #expect(response.status == .serviceUnavailable)
                        #expect(String(buffer: response.body).contains(#""error":"idp_unavailable""#))
                    }
                }
                #expect(try await environment.rowCounts().values.allSatisfy { $0 == 0 })
            }
        }
    }

    @Test func aValidRegistrationReturnsTheLoginURLAndSocket() async throws {
        try await FakeDiscoveryServer.run { issuer in
            // Managed devices skip the confirmation page: the login URL is the IdP's.
            try await TestEnvironment.with(issuer: issuer, extraEnvironment: ["ENVIRONMENTS_DEV_CONFIRM_DEVICE": "false"]) { environment in
                let body = #"{"email": "Alice@Example.com", "device": {"name": "Pixel 8", "platform": "Android"}}"#
                try await environment.application().test(.router) { client in
                    try await client.execute(
                        uri: "/register_device", method: .post, headers: Self.jsonHeaders, body: ByteBuffer(string: body)
                    ) { response in
                        #expect(response.status == .created)
                        #expect(response.headers[.cacheControl] == "no-store")
                        let answer = try JSONDecoder().decode([String: JSONScalar].self, from: Data(buffer: response.body))
                        let sessionID = try #require(answer["session_id"]?.string)
                        #expect(answer["websocket_url"]?.string == "ws://fieldpass.test/events?session_id=\(sessionID)")
                        #expect(answer["expires_in"] == .number(600))
                        #expect(answer["user_code"]?.string?.wholeMatch(of: /[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}/) != nil)
                        let loginURL = try #require(answer["login_url"]?.string.flatMap(URLComponents.init(string:)))
                        #expect(loginURL.path == "/authorize")
                        let query = Dictionary(uniqueKeysWithValues: (loginURL.queryItems ?? []).map { ($0.name, $0.value ?? "") })
                        #expect(query["response_type"] == "code")
                        #expect(query["client_id"] == "fieldpass")
                        #expect(query["redirect_uri"] == "http://fieldpass.test/auth_callback")
                        #expect(query["scope"] == "openid email profile")
                        #expect(query["code_challenge_method"] == "S256")
                        #expect(query["login_hint"] == "alice@example.com")
                        for name in ["state", "nonce", "code_challenge"] {
                            #expect(query[name]?.count == 43, "\(name)")
                        }
                    }
                }
                let counts = try await environment.rowCounts()
                #expect(counts["users"] == 1)
                #expect(counts["realms"] == 1)
                #expect(counts["devices"] == 1)
                #expect(counts["sessions"] == 1)
                #expect(counts["session_events"] == 0)
            }
        }
    }
}

/// A JSON value that is a string or a number, for reading flat answers.
enum JSONScalar: Decodable, Equatable {
    case string(String)
    case number(Double)

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else {
            self = .string(try container.decode(String.self))
        }
    }

    var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }
}
