import Tokens

/// An integration feed's cursor: an opaque token the server issues, standing for a feed
/// position. Each feed has its own prefix, so one feed's cursor is refused by the other.
enum FeedCursor {
    /// The realm feed's (`GET /integration/realms`).
    static let realms = "rf1."
    /// The lifecycle events feed's (`GET /integration/events`).
    static let lifecycle = "le1."

    static func encode(_ position: Int64, feed prefix: String = realms) -> String {
        Crypto.base64URLEncode(Array((prefix + String(position)).utf8))
    }

    /// The position, or `nil` for anything the server did not issue for this feed.
    static func decode(_ cursor: String, feed prefix: String = realms) -> Int64? {
        guard cursor.utf8.count <= 64, let bytes = Crypto.base64URLDecode(cursor),
            let text = String(validating: bytes, as: UTF8.self), text.hasPrefix(prefix),
            let position = Int64(text.dropFirst(prefix.count)), position >= 0
        else { return nil }
        return position
    }
}
