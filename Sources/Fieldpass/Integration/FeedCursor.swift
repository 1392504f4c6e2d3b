import Tokens

/// The integration feed's cursor: an opaque token the server issues, standing for a feed position.
enum FeedCursor {
    private static let prefix = "rf1."

    static func encode(_ position: Int64) -> String {
        Crypto.base64URLEncode(Array((prefix + String(position)).utf8))
    }

    /// The position, or `nil` for anything the server did not issue.
    static func decode(_ cursor: String) -> Int64? {
        guard cursor.utf8.count <= 64, let bytes = Crypto.base64URLDecode(cursor),
            let text = String(validating: bytes, as: UTF8.self), text.hasPrefix(prefix),
            let position = Int64(text.dropFirst(prefix.count)), position >= 0
        else { return nil }
        return position
    }
}
