import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import Fieldpass
@testable import FieldpassDomain
@testable import FieldpassStorage

@Suite("OpenAPI document")
struct OpenAPIDocumentTests {
    let document: [String: Any]

    init() throws {
        document = try #require(try JSONSerialization.jsonObject(with: Data(PackageResources.openapi_json)) as? [String: Any])
    }

    /// `GET /admin/users/{user_id}` for each operation of the document.
    var documentedOperations: Set<String> {
        let paths = document["paths"] as? [String: [String: Any]] ?? [:]
        let methods: Set<String> = ["get", "put", "post", "delete", "patch", "head", "options"]
        return Set(
            paths.flatMap { path, item in
                item.keys.filter(methods.contains).map { "\($0.uppercased()) \(path)" }
            })
    }

    /// Every `error` enum anywhere in the document: under the shared `Error` schema and each response's narrowing.
    func errorEnums(in value: Any) -> [[String]] {
        var found: [[String]] = []
        if let object = value as? [String: Any] {
            if let properties = object["properties"] as? [String: Any], let error = properties["error"] as? [String: Any],
                let codes = error["enum"] as? [String]
            {
                found.append(codes)
            }
            for child in object.values { found += errorEnums(in: child) }
        } else if let array = value as? [Any] {
            for child in array { found += errorEnums(in: child) }
        }
        return found
    }

    @Test("the router's routes and the document's operations are the same set")
    func routesMatchTheDocument() async throws {
        let documented = documentedOperations
        let routed = try await TestEnvironment.with { environment in
            let router = try environment.router()
            // Hummingbird writes parameters as `:name`; OpenAPI as `{name}`. SCIM (`/scim/v2`) is
            // RFC 7644's protocol, which describes itself at its own discovery endpoints
            // (`/ServiceProviderConfig`, `/ResourceTypes`, `/Schemas`) and is checked by scim2-tester.
            // The console (`/console`) is HTML pages and forms for people in a browser, not an API;
            // its router and browser tests check it.
            let undocumented = ["/scim/v2", "/console"]
            return Set(
                router.routes.filter { route in !undocumented.contains { route.path.description.hasPrefix($0) } }.map { route in
                    let path = route.path.description.split(separator: "/").map { segment in
                        segment.hasPrefix(":") ? "{\(segment.dropFirst())}" : String(segment)
                    }
                    return "\(route.method.rawValue) /\(path.joined(separator: "/"))"
                })
        }
        #expect(routed.subtracting(documented).isEmpty, "routes missing from openapi.json: \(routed.subtracting(documented).sorted())")
        #expect(documented.subtracting(routed).isEmpty, "documented but not routed: \(documented.subtracting(routed).sorted())")
        #expect(routed.count > 30)
    }

    @Test("the document lists exactly the codes of the error enumerations")
    func errorCodesMatchTheEnumerations() throws {
        let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let errorSchema = try #require(schemas["Error"])
        let shared = try #require(errorEnums(in: errorSchema).first)
        #expect(
            Set(shared) == APIErrorCodes.all,
            "Error.error.enum differs from the code: \(Set(shared).symmetricDifference(APIErrorCodes.all).sorted())")
        for narrowed in errorEnums(in: document) {
            #expect(
                Set(narrowed).isSubset(of: APIErrorCodes.all),
                "codes no enumeration has: \(Set(narrowed).subtracting(APIErrorCodes.all).sorted())")
        }
    }

    @Test("GET /openapi.json serves the document")
    func served() async throws {
        try await TestEnvironment.with { environment in
            try await environment.application().test(.router) { client in
                try await client.execute(uri: "/openapi.json", method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentType] == "application/json; charset=utf-8")
                    #expect(Array(buffer: response.body) == PackageResources.openapi_json)
                }
            }
        }
    }
}
