import Glibc

/// An IPv4 or IPv6 network such as `10.0.0.0/8` or `fd00::/8`; a bare address is a network
/// of one.
public struct IPNetwork: Sendable, Equatable, CustomStringConvertible {
    private let prefix: [UInt8]
    private let length: Int
    public let description: String

    /// Parses `address[/length]`, or returns nil.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let address = Self.bytes(of: String(parts[0])) else { return nil }
        let bits = address.count * 8
        var length = bits
        if parts.count == 2 {
            guard let given = Int(parts[1]), (0...bits).contains(given), parts[1].allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            length = given
        }
        self.prefix = address
        self.length = length
        self.description = text
    }

    /// Whether `address` (text, as a socket or a header gives it) lies in this network.
    /// An IPv4-mapped IPv6 address (`::ffff:10.1.2.3`) counts as its IPv4 address.
    public func contains(_ address: String) -> Bool {
        guard var bytes = Self.bytes(of: address) else { return false }
        if bytes.count == 16, prefix.count == 4, bytes.prefix(12) == Self.mappedPrefix[...] { bytes = Array(bytes.suffix(4)) }
        guard bytes.count == prefix.count else { return false }
        var remaining = length
        for (ours, theirs) in zip(prefix, bytes) where remaining > 0 {
            let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
            guard ours & mask == theirs & mask else { return false }
            remaining -= 8
        }
        return true
    }

    private static let mappedPrefix: [UInt8] = Array(repeating: 0, count: 10) + [0xFF, 0xFF]

    /// The 4 or 16 bytes of an address in text, or nil.
    static func bytes(of text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }
}
