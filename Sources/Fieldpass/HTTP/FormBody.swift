import Foundation
import Hummingbird

/// Reads an `application/x-www-form-urlencoded` body (the OAuth endpoints' format) into a
/// `Decodable`, turning every failure into a clear 400 (413 when too large).
enum FormBody {
    static func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T {
        guard request.headers[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true else {
            throw APIError.invalidRequest("The body must be application/x-www-form-urlencoded.")
        }
        var request = request
        let body = try await request.collectBody(upTo: context.maxUploadSize)
        guard let text = String(validating: body.readableBytesView, as: UTF8.self),
            let form = try? URLEncodedFormDecoder().decode(type, from: text)
        else {
            throw APIError.invalidRequest("The form is malformed.")
        }
        return form
    }
}
