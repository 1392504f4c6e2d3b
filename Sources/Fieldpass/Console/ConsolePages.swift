import FieldpassDomain
import Foundation
import Hummingbird

/// What every console page handler shares: the renderer, links, and how a form's change
/// ends: back to its page (post/redirect/get) when made, or a page saying why it was refused.
struct ConsolePages: Sendable {
    let renderer: ConsoleRenderer

    var base: String { renderer.base }

    func chrome(_ title: String, _ context: ConsoleRequestContext, _ section: ConsoleChrome.Section) -> ConsoleChrome {
        ConsoleChrome(title: title, base: base, visit: context.visit, section: section)
    }

    /// Makes the change, then sends the browser to `back` (a path under `/console`).
    func change(_ context: ConsoleRequestContext, back: String, _ body: () async throws -> Void) async throws -> Response {
        try await attempt(context, back: back) {
            try await body()
            return Response(status: .seeOther, headers: [.location: base + "/console" + back])
        }
    }

    /// The page `body` answers with, or one saying why the change was refused, with a way
    /// back to `back` (a path under `/console`).
    func attempt(_ context: ConsoleRequestContext, back: String, _ body: () async throws -> Response) async throws -> Response {
        let back = base + "/console" + back
        do {
            return try await body()
        } catch let error as DirectoryError {
            return refused(error.apiError, context, back: back)
        } catch let error as APIError {
            return refused(error, context, back: back)
        }
    }

    /// A page that only admins may see, or 403 for a manager.
    func requireAdmin(_ context: ConsoleRequestContext) -> Response? {
        guard !context.visit.isAdmin else { return nil }
        return renderer.message(
            status: .forbidden, title: "Admins only", text: "Only an admin may see this page.", back: base + "/console/people",
            chrome: chrome("Admins only", context, .people)
        )
    }

    func notFound(_ context: ConsoleRequestContext, what: String, back: String) -> Response {
        renderer.message(
            status: .notFound, title: "Not found", text: "No such \(what) in your environment.", back: base + "/console" + back,
            chrome: chrome("Not found", context, .people))
    }

    private func refused(_ error: APIError, _ context: ConsoleRequestContext, back: String) -> Response {
        renderer.message(
            status: error.status, title: "Not changed", text: error.description, back: back, chrome: chrome("Not changed", context, .people)
        )
    }

    /// The filters of a paged list as `&name=value…`, to follow a page link; empty values left out.
    static func filterQuery(_ items: [(String, String?)]) -> String {
        let present = items.compactMap { name, value in value.flatMap { $0.isEmpty ? nil : (name, $0) } }
        return present.isEmpty ? "" : "&" + FormEncoding.encode(present)
    }

    /// A time as the console shows it: to the minute, in UTC.
    static func time(_ date: Date?) -> String? {
        date.map { $0.ISO8601Format().prefix(16).replacingOccurrences(of: "T", with: " ") + " UTC" }
    }
}
