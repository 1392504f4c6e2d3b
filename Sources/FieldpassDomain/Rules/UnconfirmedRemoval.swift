/// What `users.unconfirmed_retention` removes at once: the people, the grants on their
/// personal realms (grants name a realm by its path, so removing the person leaves them), and
/// their history (``UnconfirmedUserRules/forgottenHistory(of:)``).
package struct UnconfirmedRemoval: Sendable, Equatable {
    package var userIDs: [String]

    package init(userIDs: [String]) {
        self.userIDs = userIDs
    }

    /// The personal realms whose grants go with their people.
    package var personalRealms: [String] {
        userIDs.map { RealmPath.personal(userID: $0) }
    }
}
