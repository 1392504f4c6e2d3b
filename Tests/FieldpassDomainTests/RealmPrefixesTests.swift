import Testing
@testable import FieldpassDomain

@Suite("Realm prefixes")
struct RealmPrefixesTests {
    let prefixes = RealmPrefixes(["acme": "/acme", "north": "/acme/north", "plain": ""])

    @Test func pathsGoOutUnderTheirEnvironmentsPrefix() {
        #expect(prefixes.outward("/users/u1", environmentID: "acme") == "/acme/users/u1")
        #expect(prefixes.outward("/users/u1", environmentID: "plain") == "/users/u1")
        #expect(prefixes.outward("/users/u1", environmentID: "unknown") == "/users/u1")
        #expect(prefixes.outward(["/common": RealmAccess.write], environmentID: "acme") == ["/acme/common": .write])
    }

    @Test func aCallersPathComesInOnlyFromUnderItsPrefix() {
        #expect(prefixes.inward("/acme/tasks", environmentID: "acme") == "/tasks")
        #expect(prefixes.inward("/tasks", environmentID: "acme") == nil)
        #expect(prefixes.inward("/acmeco/tasks", environmentID: "acme") == nil)
        #expect(prefixes.inward("/acme", environmentID: "acme") == nil)
        #expect(prefixes.inward("/acmeco/tasks", environmentID: "plain") == "/acmeco/tasks")
    }

    /// An environment without a prefix names any path but another environment's.
    @Test(arguments: [
        "/acme", "/acme/*", "/acme/common", "/acme/north/users/u1", "/*", "/ACME/common", "/Acme/users/*", "/aCmE/*", "/ACME",
    ])
    func noPathReachesAnotherEnvironment(_ path: String) {
        #expect(prefixes.reachesAnother(path, environmentID: "plain"))
        #expect(prefixes.inward(path, environmentID: "plain") == nil)
    }

    @Test(arguments: ["/acmeco", "/acmeco/*", "/ac/*", "/common", "/users/*", "/teams/t1"])
    func otherPathsReachNoOtherEnvironment(_ path: String) {
        #expect(!prefixes.reachesAnother(path, environmentID: "plain"))
        #expect(prefixes.inward(path, environmentID: "plain") == path)
    }

    @Test func aPatternAboveAPrefixCoversIt() {
        let nested = RealmPrefixes(["eu": "/eu/acme"])
        #expect(nested.reachesAnother("/eu/*", environmentID: "plain"))
        #expect(nested.reachedEnvironment("/eu/*", environmentID: "plain")?.id == "eu")
        #expect(!nested.reachesAnother("/eu/acme/*", environmentID: "eu"))
        #expect(!nested.reachesAnother("/euro/*", environmentID: "plain"))
    }

    @Test func theLongestMatchingPrefixNamesTheEnvironment() {
        #expect(prefixes.resolve("/acme/north/users/u1") == ("north", "/users/u1"))
        #expect(prefixes.resolve("/acme/users/u1") == ("acme", "/users/u1"))
        #expect(prefixes.resolve("/users/u1") == (nil, "/users/u1"))
    }
}
