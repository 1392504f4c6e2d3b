import Crypto
import Foundation

/// How a shared device finds a worker's offline permit by the badge scanned, without keeping
/// the badge: its SHA-256 under a label of Fieldpass's own, base64url. A badge is 256 random
/// bits, so the digest cannot be turned back into it, and the label keeps it apart from the
/// server's own badge hash, should both ever sit side by side.
enum BadgeDigest {
    static func of(_ badge: String) -> String {
        var input = Data("fieldpass offline badge v1\u{0}".utf8)
        input.append(Data(badge.utf8))
        return Data(SHA256.hash(data: input)).base64URLEncoded
    }
}
