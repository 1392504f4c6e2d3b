/// What marking a realm initialized writes.
package struct RealmInitializationPlan: Sendable, Equatable {
    /// The realm becomes initialized now; `false` when it was already.
    package var marksRealm: Bool
    package var move: SessionMove

    package init(marksRealm: Bool, move: SessionMove) {
        self.marksRealm = marksRealm
        self.move = move
    }
}
