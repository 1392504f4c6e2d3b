import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import Fieldpass
@testable import FieldpassDomain
@testable import FieldpassStorage

/// Every admin and integration endpoint against every kind of caller.
@Suite("Authorization matrix")
struct AuthorizationMatrixTests {
    enum Caller: String, CaseIterable, Sendable {
        case anonymous, worker, manager, admin, service, otherAdmin, otherService
    }

    struct Endpoint: Sendable, CustomTestStringConvertible {
        var method: HTTPRequest.Method
        var path: String
        var body: String?
        var expected: [Caller: HTTPResponse.Status]

        var testDescription: String { "\(method) \(path)" }
    }

    /// Reading one dev object: staff of dev may, another environment's admin does not see it.
    static func staffRead(_ path: String, otherAdmin: HTTPResponse.Status = .notFound) -> Endpoint {
        Endpoint(
            method: .get, path: path,
            expected: [
                .anonymous: .unauthorized, .worker: .forbidden, .manager: .ok, .admin: .ok,
                .service: .forbidden, .otherAdmin: otherAdmin, .otherService: .forbidden,
            ])
    }

    /// Changing a dev object: only dev's admins.
    static func adminChange(
        _ method: HTTPRequest.Method, _ path: String, body: String? = nil, success: HTTPResponse.Status = .ok,
        otherAdmin: HTTPResponse.Status = .notFound
    ) -> Endpoint {
        Endpoint(
            method: method, path: path, body: body,
            expected: [
                .anonymous: .unauthorized, .worker: .forbidden, .manager: .forbidden, .admin: success,
                .service: .forbidden, .otherAdmin: otherAdmin, .otherService: .forbidden,
            ])
    }

    static let endpoints: [Endpoint] = [
        staffRead("/admin/users", otherAdmin: .ok),
        staffRead("/admin/users/{user}"),
        staffRead("/admin/users/{user}/permissions"),
        staffRead("/admin/teams", otherAdmin: .ok),
        staffRead("/admin/teams/{team}"),
        adminChange(.put, "/admin/users/{user}/role", body: #"{"role":"manager"}"#),
        adminChange(.put, "/admin/users/{user}/grants", body: #"{"realm_path":"/tasks","access":"read"}"#),
        adminChange(.delete, "/admin/users/{user}/grants?realm_path=/tasks"),
        adminChange(.post, "/admin/teams", body: #"{"name":"South"}"#, success: .created, otherAdmin: .created),
        adminChange(.patch, "/admin/teams/{team}", body: #"{"name":"Renamed"}"#),
        adminChange(.delete, "/admin/teams/{team}", success: .noContent),
        adminChange(.put, "/admin/teams/{team}/members/{user}"),
        adminChange(.delete, "/admin/teams/{team}/members/{user}"),
        adminChange(.get, "/admin/audit", otherAdmin: .ok),
        Endpoint(
            method: .get, path: "/integration/realms",
            expected: [
                .anonymous: .unauthorized, .worker: .forbidden, .manager: .forbidden, .admin: .forbidden,
                .service: .ok, .otherAdmin: .forbidden, .otherService: .ok,
            ]),
        Endpoint(
            method: .post, path: "/integration/realms/initialized", body: #"{"realm_path":"{realm}"}"#,
            expected: [
                .anonymous: .unauthorized, .worker: .forbidden, .manager: .forbidden, .admin: .forbidden,
                .service: .ok, .otherAdmin: .forbidden, .otherService: .notFound,
            ]),
        Endpoint(
            method: .get, path: "/me",
            expected: [
                .anonymous: .unauthorized, .worker: .ok, .manager: .ok, .admin: .ok,
                .service: .forbidden, .otherAdmin: .ok, .otherService: .forbidden,
            ]),
    ]

    @Test(arguments: endpoints, Caller.allCases)
    func eachCallerGetsTheStatusItMust(endpoint: Endpoint, caller: Caller) async throws {
        try await TestEnvironment.with { environment in
            let (target, _) = try await environment.person("target@example.com", role: .worker)
            let team = try await environment.store.createTeam(name: "North", by: .cli(environmentID: "dev"), now: Date())
            let token: String? =
                switch caller {
                case .anonymous: nil
                case .worker: try await environment.person("w@example.com", role: .worker).token
                case .manager: try await environment.person("m@example.com", role: .manager).token
                case .admin: try await environment.person("a@example.com", role: .admin).token
                case .service: try environment.serviceToken()
                case .otherAdmin: try await environment.person("a@other.test", role: .admin, environmentID: "other").token
                case .otherService: try environment.serviceToken("other-backend", environmentID: "other")
                }
            let fill: @Sendable (String) -> String = { text in
                text.replacingOccurrences(of: "{user}", with: target.id).replacingOccurrences(of: "{team}", with: team.id)
                    .replacingOccurrences(of: "{realm}", with: RealmPath.personal(userID: target.id))
            }
            var fields: HTTPFields = [.contentType: "application/json"]
            if let token { fields[.authorization] = "Bearer \(token)" }
            let headers = fields
            try await environment.application().test(.router) { client in
                try await client.execute(
                    uri: fill(endpoint.path), method: endpoint.method, headers: headers,
                    body: endpoint.body.map { ByteBuffer(string: fill($0)) }
                ) { response in
                    #expect(response.status == endpoint.expected[caller], "\(String(buffer: response.body))")
                    if caller == .otherAdmin, response.status == .ok {
                        #expect(!String(buffer: response.body).contains(target.id), "another environment's data leaked")
                    }
                }
            }
        }
    }

    @Test func aForgedOrExpiredTokenIsRefused() async throws {
        try await TestEnvironment.with { environment in
            let (_, token) = try await environment.person("a@example.com", role: .admin)
            var tampered = Array(token)
            let index = tampered.index(tampered.startIndex, offsetBy: token.split(separator: ".")[0].count + 5)
            tampered[index] = tampered[index] == "A" ? "B" : "A"
            for header in ["Bearer \(String(tampered))", "Bearer not-a-token", "Basic YTpi", "Bearer"] {
                try await environment.application().test(.router) { client in
                    try await client.execute(uri: "/admin/users", method: .get, headers: [.authorization: header]) { response in
                        #expect(response.status == .unauthorized, "\(header)")
                        #expect(response.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
                    }
                }
            }
        }
    }

    @Test func aDemotedAdminLosesTheAdminAPIAtOnce() async throws {
        try await TestEnvironment.with { environment in
            let (admin, token) = try await environment.person("a@example.com", role: .admin)
            _ = try await environment.store.setRole(.worker, userID: admin.id, by: .cli(environmentID: "dev"), managed: .none, now: Date())
            try await environment.application().test(.router) { client in
                try await client.execute(uri: "/admin/users", method: .get, headers: [.authorization: "Bearer \(token)"]) { response in
                    #expect(response.status == .forbidden)
                }
            }
        }
    }
}
