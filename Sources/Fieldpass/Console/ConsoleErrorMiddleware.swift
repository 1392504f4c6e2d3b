import Hummingbird

/// Every console answer is for a browser: a redirect gets the pages' security headers too,
/// and an error (an unknown id, a body over the form limit, a store that cannot be reached)
/// is a console page rather than the API's JSON. The errors are classified as the API's are
/// (``JSONErrorMiddleware``), so both say the same thing, and unexpected ones are logged there.
struct ConsoleErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    let renderer: ConsoleRenderer

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            var response = try await JSONErrorMiddleware<Context>().handle(request, context: context, next: next)
            HTMLPage.secure(&response.headers, styles: ConsoleRenderer.styles)
            return response
        } catch let error as APIError {
            var response = renderer.message(status: error.status, title: error.status.reasonPhrase, text: error.description)
            response.headers.append(contentsOf: error.headers)
            return response
        }
    }
}
