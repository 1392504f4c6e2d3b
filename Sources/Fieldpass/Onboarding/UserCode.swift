import Tokens

/// The short code a device shows and the confirmation page repeats (RFC 8628 section 6.1):
/// eight letters from an alphabet without vowels or look-alikes, shown as `WDJB-MJHT`.
enum UserCode {
    static let alphabet = Array("BCDFGHJKLMNPQRSTVWXZ")

    /// 20^8 ≈ 2^34.6 codes; a code only has to match what one person sees on two screens.
    static func make() throws(TokenError) -> String {
        grouped(try letters(8))
    }

    /// `count` random letters of the alphabet.
    static func letters(_ count: Int) throws(TokenError) -> [Character] {
        var letters: [Character] = []
        while letters.count < count {
            // Bytes ≥ 240 are dropped so that every letter is equally likely.
            for byte in try Crypto.randomBytes(16) where byte < 240 && letters.count < count {
                letters.append(alphabet[Int(byte) % alphabet.count])
            }
        }
        return letters
    }

    /// `letters` in groups of four, joined by dashes: easier to read out and type.
    static func grouped(_ letters: [Character]) -> String {
        stride(from: 0, to: letters.count, by: 4).map { String(letters[$0..<min($0 + 4, letters.count)]) }.joined(separator: "-")
    }
}
