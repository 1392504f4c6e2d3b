/// A row the store's own rules say must exist is missing: a bug or a hand-edited database.
package struct StoreInconsistency: Error, CustomStringConvertible {
    package var description: String

    package init(_ description: String) {
        self.description = description
    }
}
