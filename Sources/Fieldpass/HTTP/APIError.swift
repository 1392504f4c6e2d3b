import Foundation
public import Hummingbird

/// A JSON API error: `{"error": code, "error_description": text}` with a 4xx/5xx status.
///
/// The description is written for the caller; internal details go to the log, never here.
public struct APIError: HTTPResponseError, Equatable {
    /// HTTP status.
    public let status: HTTPResponse.Status
    /// Machine-readable code (RFC 6749 style), a case of one of ``APIErrorCodes/areas``.
    public let code: String
    /// Human-readable explanation.
    public let description: String
    /// Extra headers, such as an authentication challenge.
    public internal(set) var headers: HTTPFields
    /// A wrong PIN's tries left before its badge locks (`attempts_left`).
    public internal(set) var attemptsLeft: Int?
    /// The PIN rule a new PIN broke (`pin_rule`) and the PIN length asked for (`pin_length`).
    public internal(set) var pinRule: String?
    public internal(set) var pinLength: Int?

    /// Creates an error answered with `status`; `code` comes from an area's enumeration.
    init(_ status: HTTPResponse.Status, _ code: some APIErrorCode, _ description: String, headers: HTTPFields = [:]) {
        self.status = status
        self.code = code.rawValue
        self.description = description
        self.headers = headers
    }

    /// An error that tells the client to try again in `seconds` (`Retry-After`).
    init(_ status: HTTPResponse.Status, _ code: some APIErrorCode, _ description: String, retryAfter seconds: Int) {
        self.init(status, code, description, headers: [.retryAfter: String(seconds)])
    }

    /// The JSON response.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = APIErrorBody(
            error: code, errorDescription: description, attemptsLeft: attemptsLeft, pinRule: pinRule, pinLength: pinLength)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(body)
        var headers = self.headers
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func invalidRequest(_ description: String) -> APIError {
        APIError(.badRequest, HTTPErrorCode.invalidRequest, description)
    }

    /// A path routed for other methods than the request's (RFC 9110 §15.5.6): `Allow` lists them.
    static func methodNotAllowed(_ allowed: [HTTPRequest.Method]) -> APIError {
        let allow = allowed.map(\.rawValue).joined(separator: ", ")
        return APIError(.methodNotAllowed, HTTPErrorCode.methodNotAllowed, "This address takes only \(allow).", headers: [.allow: allow])
    }

    static let serverError = APIError(.internalServerError, HTTPErrorCode.serverError, "The server could not complete the request.")
}

/// What an ``APIError`` answers, as JSON.
private struct APIErrorBody: Encodable {
    var error: String
    var errorDescription: String
    var attemptsLeft: Int?
    var pinRule: String?
    var pinLength: Int?

    enum CodingKeys: String, CodingKey {
        case error
        case errorDescription = "error_description"
        case attemptsLeft = "attempts_left"
        case pinRule = "pin_rule"
        case pinLength = "pin_length"
    }
}
