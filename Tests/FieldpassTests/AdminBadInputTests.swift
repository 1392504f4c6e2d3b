import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import Fieldpass
@testable import FieldpassDomain
@testable import FieldpassStorage
import NIOFoundationEssentialsCompat

/// Bad input on the admin and integration endpoints: a clear 4xx, and nothing changed.
@Suite("Admin and integration bad input")
struct AdminBadInputTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var method: HTTPRequest.Method
        var path: String
        var body: String?
        var status: HTTPResponse.Status
        var code: String
        var asService = false

        var testDescription: String { "\(method) \(path) \(body ?? "")" }
    }

    static let cases: [Case] = [
        Case(method: .get, path: "/admin/users/no-such-user", status: .notFound, code: "unknown_user"),
        Case(method: .get, path: "/admin/users/%2E%2E", status: .notFound, code: "unknown_user"),
        Case(method: .put, path: "/admin/users/{user}/role", body: #"{"role":"owner"}"#, status: .badRequest, code: "invalid_role"),
        Case(method: .put, path: "/admin/users/{user}/role", body: #"{"role":7}"#, status: .badRequest, code: "invalid_request"),
        Case(method: .put, path: "/admin/users/{user}/role", body: "role=admin", status: .badRequest, code: "invalid_request"),
        Case(method: .put, path: "/admin/users/{other}/role", body: #"{"role":"admin"}"#, status: .notFound, code: "unknown_user"),
        Case(
            method: .put, path: "/admin/users/{user}/grants", body: #"{"realm_path":"/tasks","access":"owner"}"#, status: .badRequest,
            code: "invalid_access"),
        Case(
            method: .put, path: "/admin/users/{user}/grants", body: #"{"realm_path":"tasks","access":"read"}"#, status: .badRequest,
            code: "invalid_realm_path"),
        Case(
            method: .put, path: "/admin/users/{user}/grants", body: #"{"realm_path":"/a//b","access":"read"}"#, status: .badRequest,
            code: "invalid_realm_path"),
        Case(
            method: .put, path: "/admin/users/{user}/grants", body: #"{"realm_path":"/../x","access":"read"}"#, status: .badRequest,
            code: "invalid_realm_path"),
        Case(
            method: .put, path: "/admin/users/{user}/grants",
            body: #"{"realm_path":"/\#(String(repeating: "a", count: 1024))","access":"read"}"#, status: .badRequest,
            code: "invalid_realm_path"),
        Case(method: .delete, path: "/admin/users/{user}/grants", status: .badRequest, code: "invalid_request"),
        Case(method: .post, path: "/admin/teams", body: #"{"name":""}"#, status: .badRequest, code: "invalid_request"),
        Case(method: .post, path: "/admin/teams", body: #"{"name":"North"}"#, status: .conflict, code: "team_name_taken"),
        Case(method: .patch, path: "/admin/teams/no-such-team", body: #"{"name":"X"}"#, status: .notFound, code: "unknown_team"),
        Case(method: .put, path: "/admin/teams/no-such-team/members/{user}", status: .notFound, code: "unknown_team"),
        Case(method: .put, path: "/admin/teams/{team}/members/no-such-user", status: .notFound, code: "unknown_user"),
        Case(method: .put, path: "/admin/teams/{team}/members/{other}", status: .notFound, code: "unknown_user"),
        Case(method: .get, path: "/admin/audit?limit=0", status: .badRequest, code: "invalid_request"),
        Case(method: .get, path: "/integration/realms?cursor=bogus", status: .badRequest, code: "invalid_cursor", asService: true),
        Case(method: .get, path: "/integration/realms?initialized=maybe", status: .badRequest, code: "invalid_request", asService: true),
        Case(method: .get, path: "/integration/realms?wait=-1", status: .badRequest, code: "invalid_request", asService: true),
        Case(
            method: .post, path: "/integration/realms/initialized", body: #"{"realm_path":"/tasks"}"#, status: .badRequest,
            code: "invalid_realm_path", asService: true),
        Case(
            method: .post, path: "/integration/realms/initialized", body: #"{"realm_path":"/users/nobody"}"#, status: .notFound,
            code: "unknown_realm", asService: true),
        Case(
            method: .post, path: "/integration/realms/initialized", body: #"{"realm_path":"{otherRealm}"}"#, status: .notFound,
            code: "unknown_realm", asService: true),
        Case(
            method: .post, path: "/integration/realms/initialized", body: "not json", status: .badRequest, code: "invalid_request",
            asService: true),
    ]

    @Test(arguments: cases)
    func badInputGetsAClearErrorAndChangesNothing(testCase: Case) async throws {
        try await TestEnvironment.with { environment in
            let (user, _) = try await environment.person("u@example.com", role: .worker)
            let (other, _) = try await environment.person("u@other.test", role: .worker, environmentID: "other")
            let team = try await environment.store.createTeam(name: "North", by: .cli(environmentID: "dev"), now: Date())
            let token =
                testCase.asService ? try environment.serviceToken() : try await environment.person("a@example.com", role: .admin).token
            let before = try await environment.rowCounts()
            let fill: @Sendable (String) -> String = { text in
                text.replacingOccurrences(of: "{user}", with: user.id).replacingOccurrences(of: "{other}", with: other.id)
                    .replacingOccurrences(of: "{team}", with: team.id)
                    .replacingOccurrences(of: "{otherRealm}", with: RealmPath.personal(userID: other.id))
            }
            try await environment.application().test(.router) { client in
                try await client.execute(
                    uri: fill(testCase.path), method: testCase.method,
                    headers: [.authorization: "Bearer \(token)", .contentType: "application/json"],
                    body: testCase.body.map { ByteBuffer(string: fill($0)) }
                ) { response in
                    #expect(response.status == testCase.status)
                    let error = try JSONDecoder().decode([String: String].self, from: Data(buffer: response.body))
                    #expect(error["error"] == testCase.code)
                }
            }
            #expect(try await environment.rowCounts() == before)
        }
    }
}
