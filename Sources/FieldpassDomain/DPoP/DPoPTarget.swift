import Foundation

/// The URL a proof's `htu` is compared on (RFC 9449 §4.3 step 9): without query and
/// fragment, after RFC 3986 §6's syntax- and scheme-based normalisation, so that
/// `HTTPS://Example.com:443/a/./b/%7euser` and `https://example.com/a/b/~user` are the same.
package enum DPoPTarget {
    /// The normalised form of an absolute http(s) URL, or `nil` for anything else.
    package static func normalized(_ url: String) -> String? {
        let withoutFragment = url.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let withoutQuery = withoutFragment.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
        guard let schemeEnd = withoutQuery.range(of: "://") else { return nil }
        let scheme = withoutQuery[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        let rest = withoutQuery[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" }
        let path = rest.dropFirst(authority.count)
        // User information has no place in a request's URL.
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        var host = authority.lowercased()
        let defaultPort = scheme == "http" ? ":80" : ":443"
        if host.hasSuffix(defaultPort) { host.removeLast(defaultPort.count) }
        if host.hasSuffix(":") { host.removeLast() }
        guard let normalizedPath = normalizedPercentEncoding(String(path)) else { return nil }
        return "\(scheme)://\(host)\(removingDotSegments(normalizedPath.isEmpty ? "/" : normalizedPath))"
    }

    /// Percent-encoded unreserved characters decoded, every other escape in upper case
    /// (§6.2.2.1, §6.2.2.2); `nil` for a broken escape.
    private static func normalizedPercentEncoding(_ path: String) -> String? {
        var bytes = Array(path.utf8)[...]
        var out: [UInt8] = []
        while let byte = bytes.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                out.append(byte)
                continue
            }
            guard bytes.count >= 2, let value = UInt8(String(decoding: bytes.prefix(2), as: UTF8.self), radix: 16) else { return nil }
            bytes.removeFirst(2)
            if isUnreserved(value) {
                out.append(value)
            } else {
                out += Array("%\(String(value, radix: 16, uppercase: true).leftPadded(to: 2))".utf8)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): true
        default: false
        }
    }

    /// RFC 3986 §5.2.4, on whole segments.
    private static func removingDotSegments(_ path: String) -> String {
        var output: [Substring] = []
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        for (index, segment) in segments.enumerated() {
            let isLast = index == segments.count - 1
            switch segment {
            case ".": if isLast { output.append("") }
            case "..":
                if !output.isEmpty { output.removeLast() }
                if isLast { output.append("") }
            default: output.append(segment)
            }
        }
        return "/" + output.joined(separator: "/")
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        String(repeating: "0", count: max(0, length - count)) + self
    }
}
