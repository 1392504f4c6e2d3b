import FieldpassDomain
import Hummingbird
import Logging

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
            if let unavailable = error as? StoreUnavailable { throw Self.unavailable(unavailable, context: context) }
            context.logger.error("Unhandled error", metadata: ["error.type": "\(String(reflecting: type(of: error)))"])
            throw APIError.serverError
        }
    }

    private static func unavailable(_ error: StoreUnavailable, context: Context) -> APIError {
        context.logger.warning("Store unavailable", metadata: ["reason": "\(error.reason)"])
        return APIError(
            .serviceUnavailable, HTTPErrorCode.storeUnavailable, "The database cannot be reached or written. Try again shortly.",
            retryAfter: 5
        )
    }

    private static func apiError(for status: HTTPResponse.Status) -> APIError {
        switch status {
        case .notFound: APIError(.notFound, HTTPErrorCode.notFound, "No such endpoint.")
        case .contentTooLarge: APIError(.contentTooLarge, HTTPErrorCode.payloadTooLarge, "The request body is too large.")
        case let status where status.code < 500: APIError(status, HTTPErrorCode.invalidRequest, status.reasonPhrase)
        default: APIError.serverError
        }
    }
}
