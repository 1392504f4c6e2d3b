import FieldpassDomain
import Foundation
import Hummingbird

/// SCIM's answers: `application/scim+json` bodies, and errors as RFC 7644 §3.12 shapes them.
enum ScimResponse {
    static let contentType = "application/scim+json"

    static func json(_ body: ScimJSON, status: HTTPResponse.Status = .ok, location: String? = nil) throws -> Response {
        var headers: HTTPFields = [.contentType: contentType, .cacheControl: "no-store"]
        if let location { headers[.location] = location }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try encoder.encode(body))))
    }

    static func error(_ error: ScimError, retryAfter: Int? = nil) -> Response {
        var body: [String: ScimJSON] = [
            "schemas": .array([.string(ScimSchemas.error)]), "status": .string(String(error.status)), "detail": .string(error.detail),
        ]
        if let scimType = error.scimType { body["scimType"] = .string(scimType) }
        var headers: HTTPFields = [.contentType: contentType, .cacheControl: "no-store"]
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        if error.status == 401 { headers[.wwwAuthenticate] = "Bearer realm=\"scim\"" }
        let data = (try? encoder.encode(ScimJSON.object(body))) ?? Data()
        return Response(status: .init(code: error.status), headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// A list response (RFC 7644 §3.4.2).
    static func list(_ resources: [ScimJSON], total: Int, startIndex: Int) throws -> Response {
        try json(
            .object([
                "schemas": .array([.string(ScimSchemas.listResponse)]), "totalResults": .number(Double(total)),
                "startIndex": .number(Double(startIndex)), "itemsPerPage": .number(Double(resources.count)), "Resources": .array(resources),
            ]))
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}
