/// A syntactically valid email address, normalised to lower case.
///
/// Deliberately stricter than RFC 5322: the dot-atom form only, which is what work
/// addresses use and what every IdP accepts. The whole address is lower-cased because IdPs
/// disagree about the case of the local part and the comparison must be case-insensitive.
public struct EmailAddress: Sendable, Hashable, CustomStringConvertible {
    /// The lower-cased address.
    public let value: String
    /// The lower-cased domain part.
    public let domain: String

    /// Returns `nil` for anything that is not a plain `local@domain.tld` address.
    ///
    /// The text must be ASCII before it is lower-cased: Unicode lower-cases some other
    /// characters to ASCII letters (the Kelvin sign `K` to `k`), so `\u{212A}im@example.com`
    /// would otherwise be read as Kim's address.
    public init?(_ text: String) {
        guard text.utf8.count <= 254, text.unicodeScalars.allSatisfy(\.isASCII) else { return nil }
        let lowered = text.lowercased()
        let parts = lowered.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, Self.isValidLocalPart(parts[0]), Self.isValidDomain(parts[1]) else { return nil }
        value = lowered
        domain = String(parts[1])
    }

    /// The address itself.
    public var description: String { value }

    private static let localCharacters = Set("abcdefghijklmnopqrstuvwxyz0123456789!#$%&'*+/=?^_`{|}~-")

    private static func isValidLocalPart(_ local: Substring) -> Bool {
        guard !local.isEmpty, local.utf8.count <= 64, !local.hasPrefix("."), !local.hasSuffix("."),
            !local.contains("..")
        else { return false }
        return local.allSatisfy { $0 == "." || localCharacters.contains($0) }
    }

    /// A DNS name with at least two labels of letters, digits and inner hyphens.
    static func isValidDomain(_ domain: some StringProtocol) -> Bool {
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, domain.utf8.count <= 253 else { return false }
        return labels.allSatisfy { label in
            !label.isEmpty && label.utf8.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-") }
        }
    }
}
