import FieldpassDomain
import Foundation
import Hummingbird
import NIOFoundationEssentialsCompat

/// One authenticated SCIM request: the environment its token names, and its body and query.
struct ScimCall: Sendable {
    let environment: EnvironmentSettings
    let request: Request
    /// `{public_url}/scim/v2`.
    let baseURL: String

    /// Every change a SCIM request makes is the IdP's, in the token's environment.
    var caller: DirectoryCaller { .scim(environmentID: environment.id) }
    /// Bytes a SCIM request body has at most.
    static let maxBodySize = 256 * 1024

    /// The body as JSON; a body that is not gets `invalidSyntax`, a larger one 413.
    func body() async throws -> ScimJSON {
        if let type = request.headers[.contentType]?.lowercased(),
            !type.hasPrefix("application/scim+json"), !type.hasPrefix("application/json")
        {
            throw ScimError(status: 415, "The body must be application/scim+json.")
        }
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: Self.maxBodySize)
        } catch {
            throw ScimError(status: 413, "The body is larger than \(Self.maxBodySize) bytes.")
        }
        do {
            return try JSONDecoder().decode(ScimJSON.self, from: Data(buffer: buffer))
        } catch {
            throw ScimError.invalidSyntax("The body is not valid JSON.")
        }
    }

    /// A path parameter: an id, which is never longer than this to be known.
    func id(_ context: some RequestContext) throws -> String {
        guard let id = context.parameters.get("id"), (1...64).contains(id.count) else {
            throw ScimError.notFound("No such resource.")
        }
        return id
    }

    /// The query's parameters by name, decoded as forms encode them (`+` is a space, as
    /// clients send `filter=userName+eq+"…"`); the first of a repeated name counts.
    var query: [String: String] {
        FormEncoding.decode(request.uri.query ?? "")
    }

    /// `startIndex` (1-based, at least 1) and `count` (0 to ``maxCount``, default 100).
    static func paging(_ query: [String: String]) throws -> (startIndex: Int, count: Int) {
        func integer(_ name: String) throws(ScimError) -> Int? {
            guard let text = query[name] else { return nil }
            guard let value = Int(text) else { throw .invalidValue("\(name) must be an integer.") }
            return value
        }
        return (max(1, try integer("startIndex") ?? 1), min(Self.maxCount, max(0, try integer("count") ?? 100)))
    }

    static let maxCount = 200

    /// The parameters of a `POST …/.search` body (RFC 7644 §3.4.3), as a query would give them.
    func searchParameters() async throws -> [String: String] {
        let body = try await self.body()
        guard let members = body.objectValue else { throw ScimError.invalidSyntax("The body must be a JSON object.") }
        let searchRequest = "urn:ietf:params:scim:api:messages:2.0:SearchRequest"
        guard case .array(let schemas)? = body.member("schemas")?.value,
            schemas.contains(where: { $0.stringValue?.caseInsensitiveCompare(searchRequest) == .orderedSame })
        else { throw ScimError.invalidSyntax("schemas must list \(searchRequest).") }
        let known = ["attributes", "excludedAttributes", "filter", "startIndex", "count", "sortBy", "sortOrder"]
        var parameters: [String: String] = [:]
        for (key, value) in members where key.lowercased() != "schemas" {
            guard let name = known.first(where: { $0.caseInsensitiveCompare(key) == .orderedSame }) else {
                throw ScimError.invalidSyntax("'\(key)' is not a member of a SearchRequest.")
            }
            switch value {
            case .string(let text): parameters[name] = text
            case .number(let number):
                // JSON numbers arrive as doubles: 1e19 is whole but no Int, and must not trap.
                guard let whole = Int(exactly: number) else { throw ScimError.invalidValue("\(name) must be an integer.") }
                parameters[name] = String(whole)
            case .array(let items) where items.allSatisfy({ $0.stringValue != nil }):
                parameters[name] = items.compactMap(\.stringValue).joined(separator: ",")
            case .null: continue
            default: throw ScimError.invalidValue("\(name) has the wrong type.")
            }
        }
        return parameters
    }

    /// The userName a resource sent, as a work email of this environment.
    func workEmail(_ userName: String) throws -> String {
        guard let email = EmailAddress(userName), environment.emailDomains.contains(email.domain) else {
            throw ScimError.invalidValue(
                "userName must be a work email of this environment (\(environment.emailDomains.joined(separator: ", ")))."
            )
        }
        return email.value
    }
}
