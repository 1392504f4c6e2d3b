import Foundation
/// `application/x-www-form-urlencoded` and query-string encoding (RFC 6749 appendix B).
enum FormEncoding {
    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// Percent-encodes every byte of the UTF-8 form except the unreserved characters
    /// (RFC 3986 §2.3), working on bytes: every registration builds a URL of several fields.
    static func escape(_ text: String) -> String {
        var encoded: [UInt8] = []
        encoded.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if isUnreserved(byte) {
                encoded.append(byte)
            } else {
                encoded += [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: encoded, as: UTF8.self)
    }

    static func encode(_ fields: [(String, String)]) -> String {
        fields.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }

    /// The fields of a form body or query by name, `+` read as a space as forms send it; the
    /// first of a repeated name counts, as in most servers, and a part that is not valid
    /// percent-encoding stays as written (so it matches nothing rather than vanishing).
    static func decode(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func unescaped(_ part: Substring) -> String {
                part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(part)
            }
            let name = unescaped(parts[0])
            if fields[name] == nil { fields[name] = parts.count > 1 ? unescaped(parts[1]) : "" }
        }
        return fields
    }

    /// A–Z, a–z, 0–9, "-", ".", "_" and "~".
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }
}
