/// A row the store's own rules say must exist is missing: a bug or a hand-edited database.
struct StoreInconsistency: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
