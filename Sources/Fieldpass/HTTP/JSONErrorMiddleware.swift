import Hummingbird

/// Answers every error that is not already an ``APIError`` or an HTML page as JSON, so
/// no client ever sees Hummingbird's bare defaults, and logs the unexpected ones.
struct JSONErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            throw error
        } catch let error as HTMLErrorPage {
            throw error
        } catch let error as DirectoryError {
            throw error.apiError
        } catch let error as HTTPError {
            throw Self.apiError(for: error.status)
        } catch let error as any HTTPResponseError {
            throw Self.apiError(for: error.status)
        } catch {
            if let unavailable = StoreUnavailable(classifying: error) { throw Self.unavailable(unavailable, context: context) }
            context.logger.error("Unhandled error", metadata: ["error.type": "\(String(reflecting: type(of: error)))"])
            throw APIError.serverError
        }
    }

    private static func unavailable(_ error: StoreUnavailable, context: Context) -> APIError {
        context.logger.warning("Store unavailable", metadata: ["reason": "\(error.reason)"])
        var headers = HTTPFields()
        headers[.retryAfter] = "5"
        return APIError(
            .serviceUnavailable, "store_unavailable", "The database cannot be reached or written. Try again shortly.",
            headers: headers
        )
    }

    private static func apiError(for status: HTTPResponse.Status) -> APIError {
        switch status {
        case .notFound: APIError(.notFound, "not_found", "No such endpoint.")
        case .methodNotAllowed: APIError(.methodNotAllowed, "method_not_allowed", "This method is not allowed here.")
        case .contentTooLarge: APIError(.contentTooLarge, "payload_too_large", "The request body is too large.")
        case let status where status.code < 500: APIError(status, "invalid_request", status.reasonPhrase)
        default: APIError.serverError
        }
    }
}
