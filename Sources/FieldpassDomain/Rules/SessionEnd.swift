/// A session that ends now: its token events are deleted, so that no token outlives its
/// sign-in in the store, and it is marked ended, so that it ends once.
package struct SessionEnd: Sendable, Equatable {
    package var sessionID: String
    package var at: Double
    /// The type of the events deleted with its end.
    package var droppedEventType: String

    package init(sessionID: String, at time: Double, droppedEventType: String = SessionRules.tokenEventType) {
        self.sessionID = sessionID
        self.at = time
        self.droppedEventType = droppedEventType
    }
}
