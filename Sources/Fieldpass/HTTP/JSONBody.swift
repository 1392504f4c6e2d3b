import Foundation
import Hummingbird
import NIOFoundationEssentialsCompat

/// Reads a JSON request body into a `Decodable`, turning every failure into a clear 4xx.
enum JSONBody {
    static func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T {
        if let contentType = request.headers[.contentType],
            !contentType.lowercased().hasPrefix("application/json")
        {
            throw APIError(.unsupportedMediaType, HTTPErrorCode.unsupportedMediaType, "The body must be application/json.")
        }
        var request = request
        let buffer = try await request.collectBody(upTo: context.maxUploadSize)
        do {
            return try JSONDecoder().decode(type, from: Data(buffer: buffer))
        } catch let error as DecodingError {
            throw APIError.invalidRequest(explain(error))
        }
    }

    private static func explain(_ error: DecodingError) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            codingPath.map(\.stringValue).joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])) is required."
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return context.codingPath.isEmpty ? "The body must be a JSON object." : "\(path(context.codingPath)) has the wrong type."
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "The body is not valid JSON." : "\(path(context.codingPath)) is invalid."
        @unknown default:
            return "The body is invalid."
        }
    }
}
