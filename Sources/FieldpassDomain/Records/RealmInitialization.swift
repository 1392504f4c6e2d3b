/// What marking a realm initialized did: whether it was already (its backend said so twice),
/// and the `data_ready` events it stored for the sessions waiting on it.
public struct RealmInitialization: Sendable, Equatable {
    public var wasInitialized: Bool
    public var events: [StoredEvent]

    public init(wasInitialized: Bool, events: [StoredEvent]) {
        self.wasInitialized = wasInitialized
        self.events = events
    }
}
