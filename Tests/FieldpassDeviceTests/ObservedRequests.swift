import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sees every request of a ``session()`` as it starts, and leaves it alone: the request still
/// goes to the real server by the system's HTTP, so a test learns which polls the library sent,
/// and in what order, with nothing between the library and Fieldpass.
final class ObservedRequests: URLProtocol {
    /// Each request's URL and `DPoP` header, in the order they started.
    private static let started = Mutex<[(url: URL, proof: String?)]>([])

    /// A session whose requests are observed.
    static func session() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [ObservedRequests.self] + (configuration.protocolClasses ?? [])
        return URLSession(configuration: configuration)
    }

    /// The query of each long-poll started so far to the server at `server` (each test's server
    /// has a port of its own), in the order they started.
    static func polls(to server: URL) -> [[String: String]] {
        started.withLock { $0 }.map(\.url).filter { $0.port == server.port && $0.path == "/events/poll" }.map { url in
            let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            return Dictionary(items.map { ($0.name, $0.value ?? "") }) { _, last in last }
        }
    }

    /// The DPoP proofs sent to `path` of the server at `server`, each once, in the order they
    /// started.
    static func proofs(to server: URL, path: String) -> [String] {
        var seen = Set<String>()
        return started.withLock { $0 }.filter { $0.url.port == server.port && $0.url.path == path }
            .compactMap(\.proof).filter { seen.insert($0).inserted }
    }

    /// Called for each request before it is sent: noted, then declined, so that the system's
    /// own HTTP sends it.
    override class func canInit(with request: URLRequest) -> Bool {
        if let url = request.url {
            let proof = request.value(forHTTPHeaderField: "DPoP")
            started.withLock { $0.append((url, proof)) }
        }
        return false
    }
}
