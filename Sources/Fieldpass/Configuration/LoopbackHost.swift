/// Whether a host named in the configuration is this machine, where no one can listen in
/// between: `localhost`, 127.0.0.0/8 and `::1` (brackets allowed, as URLs write it).
/// Plain-text defaults (an `http` issuer, PostgreSQL without TLS) are allowed there only.
enum LoopbackHost {
    static func contains(_ host: String) -> Bool {
        var bare = host.lowercased()
        if bare.hasPrefix("["), bare.hasSuffix("]") { bare = String(bare.dropFirst().dropLast()) }
        if bare == "localhost" { return true }
        guard let bytes = IPNetwork.bytes(of: bare) else { return false }
        return bytes.count == 4 ? bytes[0] == 127 : bytes == ipv6Loopback
    }

    private static let ipv6Loopback: [UInt8] = Array(repeating: 0, count: 15) + [1]
}
