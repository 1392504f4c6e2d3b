import Tokens

/// The short code a device shows and the confirmation page repeats (RFC 8628 section 6.1):
/// eight letters from an alphabet without vowels or look-alikes, shown as `WDJB-MJHT`.
enum UserCode {
    static let alphabet = Array("BCDFGHJKLMNPQRSTVWXZ")

    /// 20^8 ≈ 2^34.6 codes; a code only has to match what one person sees on two screens.
    static func make() throws(TokenError) -> String {
        var letters: [Character] = []
        while letters.count < 8 {
            // Bytes ≥ 240 are dropped so that every letter is equally likely.
            for byte in try Crypto.randomBytes(16) where byte < 240 && letters.count < 8 {
                letters.append(alphabet[Int(byte) % alphabet.count])
            }
        }
        return String(letters[..<4]) + "-" + String(letters[4...])
    }
}
