import Foundation

/// Who a request comes from, for rate limits: the peer's address, or, when the peer is a
/// trusted proxy, the nearest address in `X-Forwarded-For` that is not a trusted proxy.
///
/// `X-Forwarded-For` is read from the right: each proxy appends the address it saw, so only
/// the entries our own proxies added can be believed, and a client cannot pick its bucket
/// by sending the header itself.
struct ClientAddress: Sendable {
    let trustedProxies: [IPNetwork]
    /// Leading bits of an IPv6 address that name its client (`limits.ipv6_prefix`).
    let ipv6Prefix: Int

    /// The rate-limit key of a request: its client's address, or for IPv6 the network of
    /// `ipv6Prefix` bits the address lies in (see ``IPNetwork/init(client:ipv6Prefix:)``).
    func key(peer: String?, forwardedFor: [String]) -> String {
        let client = resolve(peer: peer, forwardedFor: forwardedFor)
        return IPNetwork(client: client, ipv6Prefix: ipv6Prefix)?.description ?? client
    }

    func resolve(peer: String?, forwardedFor: [String]) -> String {
        guard let peer else { return "unknown" }
        guard isTrusted(peer) else { return peer }
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
        var client = peer
        for hop in hops.reversed() {
            // A hop that is not an address means a proxy in front of ours wrote garbage: stop at the last good one.
            guard IPNetwork.bytes(of: hop) != nil else { break }
            client = hop
            if !isTrusted(hop) { break }
        }
        return client
    }

    private func isTrusted(_ address: String) -> Bool {
        trustedProxies.contains { $0.contains(address) }
    }
}
