import FieldpassDomain
import Tokens

/// What goes on a printed badge, and the PINs an admin hands out.
///
/// A badge is `fpb_` and 256 random bits in base64url: the prefix lets a scanner app tell a
/// badge from any other QR code; only its SHA-256 is stored. A temporary PIN is random digits
/// that ``PinRules`` would take from a worker too.
enum BadgeCredentials {
    static let prefix = "fpb_"

    /// A new badge value, and what the store keeps of it.
    static func makeBadge() throws(TokenError) -> (badge: String, digest: String) {
        let badge = prefix + (try Crypto.randomToken(byteCount: 32))
        return (badge, OpaqueToken.digest(badge))
    }

    /// What the store keeps of a badge as scanned: its hash, whatever it is, so that a wrong
    /// one is refused exactly as an unknown one.
    static func digest(of badge: String) -> String {
        OpaqueToken.digest(badge)
    }

    /// A random PIN of `length` digits that the PIN rules take.
    static func temporaryPin(length: Int) throws(TokenError) -> String {
        while true {
            let bytes = try Crypto.randomBytes(length * 2)
            // Two bytes a digit: 65,536 % 10 leaves a bias of under 0.01 %.
            var pin = ""
            for index in 0..<length {
                let value = Int(bytes[2 * index]) << 8 | Int(bytes[2 * index + 1])
                pin += String(value % 10)
            }
            if (try? PinRules.check(pin, length: length)) != nil { return pin }
        }
    }
}
