import Foundation

/// Who a request comes from, for rate limits: the peer's address, or, when the peer is a
/// trusted proxy, the nearest address in `X-Forwarded-For` that is not a trusted proxy.
///
/// `X-Forwarded-For` is read from the right: each proxy appends the address it saw, so only
/// the entries our own proxies added can be believed, and a client cannot pick its bucket
/// by sending the header itself.
struct ClientAddress: Sendable {
    let trustedProxies: [IPNetwork]

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
