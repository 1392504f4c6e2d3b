/// Where a badge sign-in's PIN is checked and a new PIN hashed: slow on purpose (a
/// memory-hard hash), so on a thread of its own and in turns per environment, never inside a
/// store's transaction.
package protocol PinHashing: Sendable {
    /// Whether `pin` is the one `stored` was made of, and the hash it was checked against: an
    /// unknown badge's (`nil`) is checked against a decoy, which costs the same.
    func verify(_ pin: String, against stored: String?, for environmentID: String) async throws -> (matched: Bool, checked: String)

    /// The stored form of a new PIN.
    func make(_ pin: String, for environmentID: String) async throws -> String
}
