import Glibc

/// An IPv4 or IPv6 network such as `10.0.0.0/8` or `fd00::/8`; a bare address is a network
/// of one.
public struct IPNetwork: Sendable, Equatable, CustomStringConvertible {
    /// The network's address bytes, with the host bits cleared.
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
            guard let given = Int(parts[1]), (0...bits).contains(given), parts[1].allSatisfy({ $0.isASCII && $0.isNumber }) else {
                return nil
            }
            length = given
        }
        self.prefix = Self.masked(address, to: length)
        self.length = length
        self.description = text
    }

    /// The network a client address counts as for rate limits: an IPv4 address (also one
    /// written IPv4-mapped, `::ffff:10.1.2.3`) alone, described as the bare address; an
    /// IPv6 address by its first `ipv6Prefix` bits, described as `2001:db8:1:2::/64`,
    /// because one host is usually handed a whole /64 and could otherwise pick a new
    /// address, and so a new bucket, for every request. Nil for text that is no address.
    init?(client text: String, ipv6Prefix: Int) {
        guard let address = Self.bytes(of: text).map(Self.unmapped) else { return nil }
        let isV4 = address.count == 4
        length = isV4 ? 32 : ipv6Prefix
        prefix = Self.masked(address, to: length)
        guard let text = Self.text(of: prefix) else { return nil }
        description = isV4 ? text : "\(text)/\(length)"
    }

    /// Whether `address` (text, as a socket or a header gives it) lies in this network.
    /// An IPv4-mapped IPv6 address (`::ffff:10.1.2.3`) counts as its IPv4 address.
    public func contains(_ address: String) -> Bool {
        guard var bytes = Self.bytes(of: address) else { return false }
        if prefix.count == 4 { bytes = Self.unmapped(bytes) }
        return bytes.count == prefix.count && Self.masked(bytes, to: length) == prefix
    }

    private static let mappedPrefix: [UInt8] = Array(repeating: 0, count: 10) + [0xFF, 0xFF]

    /// The IPv4 address inside an IPv4-mapped IPv6 address; any other address as it is.
    private static func unmapped(_ bytes: [UInt8]) -> [UInt8] {
        bytes.count == 16 && bytes.prefix(12) == mappedPrefix[...] ? Array(bytes.suffix(4)) : bytes
    }

    /// `bytes` with every bit after the first `length` cleared.
    private static func masked(_ bytes: [UInt8], to length: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let kept = length - index * 8
            return kept >= 8 ? byte : kept <= 0 ? 0 : byte & ~(0xFF >> UInt8(kept))
        }
    }

    /// The 4 or 16 bytes of an address in text, or nil.
    static func bytes(of text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    /// The canonical text of 4 or 16 address bytes (RFC 5952 for IPv6).
    private static func text(of bytes: [UInt8]) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        let written = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) }
        guard written != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
