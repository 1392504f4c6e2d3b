import FieldpassDomain
import Foundation
import Hummingbird

/// One authenticated SCIM request: the environment its token names, and its body and query.
struct ScimCall: Sendable {
    let environment: EnvironmentSettings
    let request: Request
    /// `{public_url}/scim/v2`.
    let baseURL: String

    static let actor = "scim"
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

    /// `startIndex` (1-based, at least 1) and `count` (0 to ``maxCount``, default 100).
    func paging() throws -> (startIndex: Int, count: Int) {
        let query = request.uri.queryParameters
        func integer(_ name: String) throws(ScimError) -> Int? {
            guard let text = query.get(name) else { return nil }
            guard let value = Int(text) else { throw .invalidValue("\(name) must be an integer.") }
            return value
        }
        return (max(1, try integer("startIndex") ?? 1), min(Self.maxCount, max(0, try integer("count") ?? 100)))
    }

    static let maxCount = 200

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
