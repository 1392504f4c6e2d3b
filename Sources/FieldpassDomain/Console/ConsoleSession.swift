public import Foundation

/// A signed-in console browser. The cookie itself is never kept, only its hash.
public struct ConsoleSession: Sendable, Equatable {
    public var idHash: String
    public var userID: String
    public var environmentID: String
    public var createdAt: Date
    /// The absolute end (`console.lifetime` after sign-in).
    public var expiresAt: Date
    /// The idle end (`console.idle_timeout` after the last request), never past `expiresAt`.
    public var idleExpiresAt: Date

    public init(idHash: String, userID: String, environmentID: String, createdAt: Date, expiresAt: Date, idleExpiresAt: Date) {
        self.idHash = idHash
        self.userID = userID
        self.environmentID = environmentID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.idleExpiresAt = idleExpiresAt
    }
}
