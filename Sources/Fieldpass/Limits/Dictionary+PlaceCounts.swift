/// Places held, counted by key (an environment): a key holding none is not kept, so that the
/// count of keys stays the count of keys holding a place.
extension Dictionary where Value == Int {
    /// One place of `key` given back; the key gone with its last.
    mutating func releasePlace(of key: Key) {
        self[key] = self[key].flatMap { $0 > 1 ? $0 - 1 : nil }
    }
}
