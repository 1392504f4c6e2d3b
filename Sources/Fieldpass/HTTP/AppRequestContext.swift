public import Foundation
public import Hummingbird
public import HummingbirdWebSocket
public import NIOCore

/// The request context of every route, WebSocket upgrades included.
public struct AppRequestContext: RequestContext, WebSocketRequestContext, RemoteAddressRequestContext {
    /// Hummingbird's per-request storage.
    public var coreContext: CoreRequestContextStorage
    /// Set by the router when a route upgrades to a WebSocket.
    public let webSocket: WebSocketHandlerReference<Self>
    /// The caller, once ``BearerAuthenticator`` has verified their token.
    public var identity: Identity?
    /// The connection's peer, which rate limits key on (through any trusted proxy).
    public let remoteAddress: SocketAddress?
    /// The client's rate-limit key (its address, an IPv6 client's network), once a
    /// ``RateLimitMiddleware`` has worked it out; `nil` where no limit applies.
    public var clientNetwork: String?
    /// The console session and form, once ``ConsoleSessionMiddleware`` has checked them.
    var consoleVisit: ConsoleVisit?

    /// Creates the context for one request.
    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.webSocket = .init()
        self.remoteAddress = source.channel.remoteAddress
    }

    /// No endpoint takes more than this; bigger bodies get 413 before they are read whole.
    public var maxUploadSize: Int { Self.maxBodySize }

    /// Plain URLs in JSON (`https://…`, not `https:\/\/…`) and ISO 8601 dates.
    public var responseEncoder: JSONEncoder { Self.encoder }

    /// Shared by every context, so all routes answer alike.
    static let maxBodySize = 64 * 1024

    /// One encoder for all requests.
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()
}
