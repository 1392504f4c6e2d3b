import Hummingbird

/// An error shown to a person in a browser, as a small HTML page.
struct HTMLErrorPage: HTTPResponseError {
    let status: HTTPResponse.Status
    let page: HTMLPage

    func response(from request: Request, context: some RequestContext) throws -> Response {
        page.response(status: status)
    }
}
