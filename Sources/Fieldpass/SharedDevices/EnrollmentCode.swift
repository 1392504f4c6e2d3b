import Tokens

/// The one-time code a shared device enrolls with, shown once to whoever enrolled it (with
/// its QR code): twenty letters of ``UserCode``'s alphabet, 20^20 ≈ 2^86 codes, grouped as
/// `BCDF-GHJK-LMNP-QRST-VWXZ`. Only its hash is stored.
enum EnrollmentCode {
    static let length = 20

    /// A new code as shown, and what the store keeps of it.
    static func make() throws(TokenError) -> (code: String, digest: String) {
        let letters = try UserCode.letters(length)
        return (UserCode.grouped(letters), OpaqueToken.digest(String(letters)))
    }

    /// What the store keeps of a code as typed or scanned, case, spaces and dashes aside;
    /// `nil` when it cannot be one, so that junk never reaches the store.
    static func digest(of text: String) -> String? {
        guard text.utf8.count <= 64 else { return nil }
        let letters = text.uppercased().filter { $0 != "-" && $0 != " " }
        guard letters.count == length, letters.allSatisfy(UserCode.alphabet.contains) else { return nil }
        return OpaqueToken.digest(letters)
    }
}
