/// A realm's row, as deciding its initialization needs it.
package struct RealmFacts: Sendable, Equatable {
    package var userID: String
    package var environmentID: String
    package var initialized: Bool

    package init(userID: String, environmentID: String, initialized: Bool) {
        self.userID = userID
        self.environmentID = environmentID
        self.initialized = initialized
    }
}
