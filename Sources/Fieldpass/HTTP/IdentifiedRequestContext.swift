public import Foundation
public import Hummingbird

/// The context of routes that need a caller: it cannot be made without an identity, so no
/// handler behind it can forget the check.
public struct IdentifiedRequestContext: ChildRequestContext {
    /// Hummingbird's per-request storage.
    public var coreContext: CoreRequestContextStorage
    /// The verified caller.
    public let identity: Identity

    /// Takes the identity the authenticator set, or answers 401.
    public init(context: AppRequestContext) throws {
        guard let identity = context.identity else { throw BearerAuthenticator.unauthorized("A bearer token is required.") }
        self.coreContext = context.coreContext
        self.identity = identity
    }

    /// As for every route.
    public var maxUploadSize: Int { AppRequestContext.maxBodySize }

    /// As for every route.
    public var responseEncoder: JSONEncoder { AppRequestContext.encoder }
}
