/// The database cannot be reached or cannot take writes now (a restart, a full disk).
/// Requests answer 503 `store_unavailable`; nothing was changed.
public struct StoreUnavailable: Error, CustomStringConvertible {
    /// What failed, without values: safe to log.
    public var reason: String

    public init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { "store unavailable: \(reason)" }
}
