/// `email_verified` as IdPs really send it: a JSON boolean, or (some IdPs) the string
/// `"true"` / `"false"`. Anything else counts as not verified; absent stays `nil`.
enum EmailVerifiedClaim {
    static func decode<Key: CodingKey>(from container: KeyedDecodingContainer<Key>, forKey key: Key) -> Bool? {
        guard container.contains(key) else { return nil }
        if let flag = try? container.decode(Bool.self, forKey: key) { return flag }
        if let text = try? container.decode(String.self, forKey: key) { return text == "true" }
        return false
    }
}
