import HTTPTypes
@_spi(Internal) import Hummingbird

/// The router's paths, each with the methods routed there; a request's path is matched as
/// the router matches it.
///
/// `Router.routes` lists the routes, but matching a path against them must follow the
/// router's precedence (`/Users/.search` is never `/Users/:id`), so the table is kept in
/// Hummingbird's own path trie, which it opens to `@_spi(Internal)` importers.
struct RouteTable: Sendable {
    /// One routed path: its template, as the access log names routes, and its methods.
    struct Route: Sendable {
        let path: String
        let methods: [HTTPRequest.Method]
    }

    private let trie: RouterTrie<Route>

    init<Context>(_ routes: [Router<Context>.RouteDescription]) {
        let builder = RouterPathTrieBuilder<Route>()
        for (path, routes) in Dictionary(grouping: routes, by: \.path.description) {
            let methods = routes.map(\.method).sorted { $0.rawValue < $1.rawValue }
            builder.addEntry(routes[0].path, value: Route(path: path, methods: methods))
        }
        trie = builder.build()
    }

    /// The routed path that `path` is, whatever the request's method; `nil` for a path no
    /// route has.
    func route(at path: String) -> Route? {
        trie.resolve(path)?.value
    }
}
