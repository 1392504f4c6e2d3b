import Foundation
import Hummingbird

/// The fields of a console form (`application/x-www-form-urlencoded`, at most 16 KiB).
/// Anything else reads as no fields, which no form accepts: it lacks the anti-CSRF token.
/// A GET form's fields come in the query, encoded the same way: a space as `+`, which
/// Hummingbird's `queryParameters` leaves as it is.
enum ConsoleForm {
    static let maxSize = 16 * 1024

    static func fields(_ request: inout Request) async throws -> [String: String] {
        guard request.headers[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true else { return [:] }
        let body = try await request.collectBody(upTo: maxSize)
        guard let text = String(validating: body.readableBytesView, as: UTF8.self) else { return [:] }
        return FormEncoding.decode(text)
    }

    /// The fields of a GET form, from the request's query.
    static func query(_ request: Request) -> [String: String] {
        FormEncoding.decode(request.uri.query ?? "")
    }
}
