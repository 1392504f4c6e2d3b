import Tokens

/// An integration feed's cursor: an opaque token the server issues, standing for a feed
/// position.
///
/// Positions are numbers of one sequence that every environment's writes share: a plain
/// number would tell a backend how much the other companies did, and a made-up one whether
/// the feed reaches that far. So a cursor is sealed (AES-256-GCM) under a key of the service
/// account it was issued to, with its environment and feed inside: it shows nothing, and one
/// made up, or issued to another account, environment or feed, does not open. The key comes
/// from the account's secret, which every instance has; a new secret makes the old cursors
/// invalid, and the backend starts again from the beginning of the feed.
struct FeedCursor: Sendable {
    enum Feed: String, Sendable {
        /// `GET /integration/realms`.
        case realms = "rf1"
        /// `GET /integration/events`.
        case lifecycle = "le1"
    }

    private let key: [UInt8]
    private let environmentID: String

    /// The cursors of the account whose secret has `secretDigest`, in its environment.
    init(secretDigest: [UInt8], environmentID: String) {
        key = Crypto.sha256(Array("fieldpass feed cursor v1".utf8) + secretDigest)
        self.environmentID = environmentID
    }

    /// Every position is sealed as the 19 digits of the largest `Int64`, so a cursor's length
    /// is the same wherever the feed stands: a sealed box is as long as what it holds.
    func encode(_ position: Int64, feed: Feed) throws -> String {
        let digits = String(position)
        let padded = String(repeating: "0", count: max(0, Self.positionDigits - digits.count)) + digits
        return Crypto.base64URLEncode(try SealedBox.seal(Array(prefix(feed).utf8) + Array(padded.utf8), key: key))
    }

    private static let positionDigits = String(Int64.max).count

    /// The position, or `nil` for anything the server did not issue to this account for this feed.
    func decode(_ cursor: String, feed: Feed) -> Int64? {
        guard cursor.utf8.count <= 200, let box = Crypto.base64URLDecode(cursor), let opened = SealedBox.open(box, key: key),
            let text = String(validating: opened, as: UTF8.self), text.hasPrefix(prefix(feed)),
            let position = Int64(text.dropFirst(prefix(feed).count)), position >= 0
        else { return nil }
        return position
    }

    private func prefix(_ feed: Feed) -> String {
        "\(feed.rawValue).\(environmentID)."
    }
}
