import Testing
@testable import Fieldpass
@testable import FieldpassDomain
@testable import FieldpassStorage

@Suite("Rate limits")
struct RateLimitTests {
    let start = ContinuousClock.now

    @Test("a bucket allows its burst, then refuses with the seconds until the next token")
    func burstThenRefusal() {
        let limiter = RateLimiter(limit: .token, rule: RateLimitRule(perMinute: 6, burst: 3))
        for _ in 0..<3 { #expect(limiter.take("10.0.0.1", now: start) == .allowed) }
        #expect(limiter.take("10.0.0.1", now: start) == .refused(.token, retryAfter: 10))
        #expect(limiter.take("10.0.0.1", now: start + .seconds(4)) == .refused(.token, retryAfter: 6))
        #expect(limiter.take("10.0.0.2", now: start) == .allowed, "another client has its own bucket")
    }

    @Test("tokens come back at the rule's rate and never beyond the burst")
    func refill() {
        let limiter = RateLimiter(limit: .token, rule: RateLimitRule(perMinute: 60, burst: 2))
        #expect(limiter.take("a", now: start) == .allowed)
        #expect(limiter.take("a", now: start) == .allowed)
        #expect(limiter.take("a", now: start + .milliseconds(500)) != .allowed)
        #expect(limiter.take("a", now: start + .seconds(1)) == .allowed)
        let later = start + .seconds(3600)
        #expect(limiter.take("a", now: later) == .allowed)
        #expect(limiter.take("a", now: later) == .allowed)
        #expect(limiter.take("a", now: later) != .allowed, "an hour's rest saves up no more than the burst")
    }

    @Test("full buckets are dropped once the table grows, limited clients are kept")
    func pruning() {
        let limiter = RateLimiter(limit: .token, rule: RateLimitRule(perMinute: 60, burst: 1))
        for index in 0..<1024 { _ = limiter.take("client-\(index)", now: start) }
        #expect(limiter.trackedKeys == 1024)
        #expect(limiter.take("limited", now: start + .seconds(10)) == .allowed)
        #expect(limiter.trackedKeys == 1, "the refilled buckets went, the one just emptied stayed")
        #expect(limiter.take("limited", now: start + .seconds(10)) != .allowed)
    }

    @Test("only a wrong secret of a configured account takes a token; with none left even the right one is refused")
    func clientAuthenticationFailures() throws {
        let secret = String(repeating: "s", count: 32)
        let yaml = """
            environments:
              - id: dev
                email_domains: [example.com]
                service_accounts:
                  - id: backend
                    secret_env: BACKEND_SECRET
                idp: { issuer: "https://i", client_id: c, client_secret_env: S }
            """
        let configuration = try FieldpassConfiguration.parse(yaml: yaml, environment: ["BACKEND_SECRET": secret])
        let limiter = RateLimiter(limit: .clientAuthentication, rule: RateLimitRule(perMinute: 1, burst: 2))
        let directory = ServiceAccountDirectory(environments: configuration.environments, failures: limiter)
        let (home, elsewhere) = ("198.51.100.7", "203.0.113.9")
        #expect(try directory.authenticate(id: "backend", secret: secret, from: home)?.id == "backend")
        for index in 0..<5 { #expect(try directory.authenticate(id: "made-up-\(index)", secret: secret, from: elsewhere) == nil) }
        #expect(limiter.trackedKeys == 0, "neither a success nor an unknown id makes a bucket")
        #expect(try directory.authenticate(id: "backend", secret: "wrong", from: elsewhere) == nil)
        #expect(try directory.authenticate(id: "backend", secret: "wrong", from: elsewhere) == nil)
        #expect(throws: APIError.self) { try directory.authenticate(id: "backend", secret: secret, from: elsewhere) }
        #expect(limiter.trackedKeys == 1)
        // The grinding locks out every other network, not the one the account last worked from.
        #expect(try directory.authenticate(id: "backend", secret: secret, from: home) != nil)
    }

    @Test("a key holds at most its share of the places, all keys together at most the capacity")
    func fairShare() async {
        let gate = ConcurrencyGate(capacity: 3, keys: 2)
        #expect(gate.share == 1)
        var admitted: [String] = []
        _ = await gate.withPlace(for: "a") {
            admitted.append("a")
            _ = await gate.withPlace(for: "a") { admitted.append("a again") }
            _ = await gate.withPlace(for: "b") {
                admitted.append("b")
                _ = await gate.withPlace(for: "c") {
                    admitted.append("c")
                    _ = await gate.withPlace(for: "d") { admitted.append("d, over the capacity") }
                }
            }
        }
        #expect(admitted == ["a", "b", "c"])
        #expect(await gate.withPlace(for: "a") { true } == true, "places come free when their holders finish")
        #expect(ConcurrencyGate(capacity: 64, keys: 3).share == 21)
        #expect(ConcurrencyGate(capacity: 64, keys: 0).share == 64)
    }

    @Test(
        "networks match their own addresses only",
        arguments: [
            ("10.0.0.0/8", "10.200.3.4", true), ("10.0.0.0/8", "11.0.0.1", false),
            ("192.168.1.7", "192.168.1.7", true), ("192.168.1.7", "192.168.1.8", false),
            ("172.16.0.0/12", "172.31.255.255", true), ("172.16.0.0/12", "172.32.0.0", false),
            ("fd00::/8", "fd12::1", true), ("fd00::/8", "fe80::1", false), ("::1", "::1", true),
            ("10.0.0.0/8", "::ffff:10.1.2.3", true), ("10.0.0.0/8", "fd00::1", false),
            ("0.0.0.0/0", "203.0.113.9", true), ("10.0.0.0/8", "not an address", false),
        ])
    func networks(network: String, address: String, inside: Bool) throws {
        let parsed = try #require(IPNetwork(network))
        #expect(parsed.contains(address) == inside)
    }

    @Test(
        "malformed networks are refused",
        arguments: ["", "10.0.0.0/33", "10.0.0/8", "::1/129", "10.0.0.0/", "10.0.0.0/8/8", "example.com", "10.0.0.0/+8"])
    func malformedNetworks(text: String) {
        #expect(IPNetwork(text) == nil)
    }

    @Test(
        "an IPv6 client is keyed by its network, an IPv4 one (mapped or not) by its address",
        arguments: [
            ("2001:db8:1:2:aaaa:bbbb:cccc:dddd", 64, "2001:db8:1:2::/64"),
            ("2001:DB8:1:2::1", 64, "2001:db8:1:2::/64"),
            ("2001:db8:1:3::1", 64, "2001:db8:1:3::/64"),
            ("2001:db8:1:2:aaaa::1", 48, "2001:db8:1::/48"),
            ("2001:db8:1:2:aaaa::1", 128, "2001:db8:1:2:aaaa::1/128"),
            ("2001:db8:ffff::1", 1, "::/1"),
            ("fe80::1", 1, "8000::/1"),
            ("::1", 64, "::/64"),
            ("198.51.100.7", 64, "198.51.100.7"),
            ("::ffff:198.51.100.7", 64, "198.51.100.7"),
            ("::ffff:198.51.100.7", 128, "198.51.100.7"),
        ])
    func clientKeys(address: String, prefix: Int, key: String) {
        #expect(ClientAddress(trustedProxies: [], ipv6Prefix: prefix).key(peer: address, forwardedFor: []) == key)
    }

    @Test("the key of a forwarded client is its network; text that is no address stays as it is")
    func forwardedClientKeys() throws {
        let resolver = ClientAddress(trustedProxies: [try #require(IPNetwork("::1"))], ipv6Prefix: 64)
        #expect(resolver.key(peer: "::1", forwardedFor: ["2001:db8:5:6::9"]) == "2001:db8:5:6::/64")
        #expect(resolver.key(peer: "::1", forwardedFor: ["2001:db8:5:6::9, ::1"]) == "2001:db8:5:6::/64")
        #expect(resolver.key(peer: nil, forwardedFor: []) == "unknown")
    }

    @Test("X-Forwarded-For is believed only from trusted proxies, read from the right")
    func forwardedFor() throws {
        let resolver = ClientAddress(trustedProxies: [try #require(IPNetwork("10.0.0.0/8"))], ipv6Prefix: 64)
        #expect(resolver.resolve(peer: "203.0.113.5", forwardedFor: ["198.51.100.1"]) == "203.0.113.5", "an untrusted peer is the client")
        #expect(resolver.resolve(peer: "10.0.0.2", forwardedFor: ["198.51.100.1"]) == "198.51.100.1")
        #expect(
            resolver.resolve(peer: "10.0.0.2", forwardedFor: ["1.1.1.1, 198.51.100.1, 10.0.0.9"]) == "198.51.100.1",
            "a spoofed entry left of the first untrusted hop is ignored"
        )
        #expect(
            resolver.resolve(peer: "10.0.0.2", forwardedFor: ["1.1.1.1", "198.51.100.1"]) == "198.51.100.1", "several headers form one list"
        )
        #expect(resolver.resolve(peer: "10.0.0.2", forwardedFor: []) == "10.0.0.2")
        #expect(resolver.resolve(peer: "10.0.0.2", forwardedFor: ["garbage, 198.51.100.1"]) == "198.51.100.1")
        #expect(
            resolver.resolve(peer: "10.0.0.2", forwardedFor: ["198.51.100.1, garbage"]) == "10.0.0.2",
            "garbage from our own proxy ends the walk")
    }
}
