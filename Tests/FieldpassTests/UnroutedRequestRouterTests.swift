import Foundation
import Hummingbird
import HummingbirdTesting
import NIOFoundationEssentialsCompat
import Testing
@testable import Fieldpass

/// What no route takes, for every route of the router's own table: a method its path does
/// not have answers 405 with exactly the path's methods in `Allow` (RFC 9110 §15.5.6), in the
/// error shape of the path's part of the service; a path no route has still answers 404.
@Suite("Unrouted requests")
struct UnroutedRequestRouterTests {
    /// Every method a client may send; `QUERY` is one the router knows nothing of.
    static let methods: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete, .options, .trace, .init("QUERY")!]
    static let scimHeaders: HTTPFields = [.authorization: "Bearer \(TestEnvironment.scimToken)"]

    /// `template` with each `:parameter` given a value.
    static func sample(_ template: String) -> String {
        template.split(separator: "/").map { $0.hasPrefix(":") ? "sample-id" : String($0) }.reduce("") { $0 + "/" + $1 }
    }

    /// The content type a refusal has under `path`: SCIM's, a console page, or the API's JSON.
    static func contentType(under path: String) -> String {
        if path.hasPrefix("/scim/v2/") { return "application/scim+json" }
        return path.hasPrefix("/console") ? "text/html; charset=utf-8" : "application/json; charset=utf-8"
    }

    @Test func everyRoutedPathAnswersItsOtherMethodsWith405AndItsAllow() async throws {
        try await TestEnvironment.with { environment in
            // Each path, with a value for each parameter, and the methods routed there.
            let routes = Dictionary(grouping: try environment.router().routes) { Self.sample($0.path.description) }
                .mapValues { Set($0.map(\.method.rawValue)) }
            #expect(routes.count > 60)
            try await environment.application().test(.router) { client in
                for (path, served) in routes {
                    for method in Self.methods where !served.contains(method.rawValue) {
                        let response = try await client.execute(uri: path, method: method, headers: Self.scimHeaders) { $0 }
                        #expect(response.status == .methodNotAllowed, "\(method) \(path)")
                        let allow = response.headers[.allow]?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                        #expect(allow.map(Set.init) == served, "\(method) \(path): Allow \(allow ?? [])")
                        #expect(response.headers[.contentType] == Self.contentType(under: path), "\(method) \(path)")
                    }
                }
            }
        }
    }

    @Test func aRefusalIsEachPartsOwnError() async throws {
        try await TestEnvironment.with { environment in
            try await environment.application().test(.router) { client in
                let api = try await client.execute(uri: "/admin/users/sample-id/role", method: .post) { $0 }
                let error = try JSONDecoder().decode([String: String].self, from: Data(buffer: api.body))
                #expect(error["error"] == "method_not_allowed" && error["error_description"] == "This address takes only PUT.")

                let scim = try await client.execute(uri: "/scim/v2/Users", method: .delete, headers: Self.scimHeaders) { $0 }
                let scimError = try JSONSerialization.jsonObject(with: Data(buffer: scim.body)) as? [String: Any]
                #expect(scimError?["status"] as? String == "405")
                #expect(scimError?["detail"] as? String == "This address takes only GET, POST.")
                #expect(scim.headers[.allow] == "GET, POST")

                let page = try await client.execute(uri: "/console/teams/sample-id/rename", method: .get) { $0 }
                #expect(page.status == .methodNotAllowed && page.headers[.allow] == "POST")
                #expect(String(buffer: page.body).contains("This address takes only POST."))
                ConsoleRouterTests.expectBrowserHeaders(page)
            }
        }
    }

    /// SCIM asks for its token before anything else, as on its routes.
    @Test func scimRefusesACallerWithoutItsTokenFirst() async throws {
        try await TestEnvironment.with { environment in
            try await environment.application().test(.router) { client in
                for method: HTTPRequest.Method in [.delete, .head] {
                    let response = try await client.execute(uri: "/scim/v2/Users", method: method) { $0 }
                    #expect(response.status == .unauthorized && response.headers[.allow] == nil, "\(method)")
                }
            }
        }
    }

    @Test(
        "a path no route has is still 404, in its part's shape",
        arguments: [
            ("/no/such/path", "application/json; charset=utf-8"), ("/admin/users/sample-id/nothing", "application/json; charset=utf-8"),
            ("/scim/v2/Nothing", "application/scim+json"), ("/console/nothing", "text/html; charset=utf-8"),
        ])
    func unknownPathsAreNotFound(path: String, contentType: String) async throws {
        try await TestEnvironment.with { environment in
            try await environment.application().test(.router) { client in
                for method: HTTPRequest.Method in [.get, .delete, .options] {
                    let response = try await client.execute(uri: path, method: method, headers: Self.scimHeaders) { $0 }
                    #expect(response.status == .notFound, "\(method) \(path)")
                    #expect(response.headers[.allow] == nil && response.headers[.contentType] == contentType, "\(method) \(path)")
                }
            }
        }
    }
}
