import Foundation
import Testing
@testable import Fieldpass
@testable import FieldpassDomain

@Suite("The claims an IdP sends, as the mappings read them")
struct IdPClaimsTests {
    static func claims(_ json: String) throws -> IdPClaims {
        try JSONDecoder().decode(IdPClaims.self, from: Data(json.utf8))
    }

    @Test func claimsAreTextOrListsOfTextAndAnythingElseIsUnusable() throws {
        let claims = try Self.claims(#"{"roles": "Fieldpass.Admin", "groups": ["a", "b"], "level": 3, "mixed": ["a", 1], "gone": null}"#)
        #expect(claims.value(of: "roles") == .values(["Fieldpass.Admin"]))
        #expect(claims.value(of: "groups") == .values(["a", "b"]))
        #expect(claims.value(of: "level") == .unusable)
        #expect(claims.value(of: "mixed") == .unusable)
        #expect(claims.value(of: "gone") == .missing)
        #expect(claims.value(of: "teams") == .missing)
    }

    @Test func entrasGroupOverageMarkersCountAsOverage() throws {
        let named = try Self.claims(#"{"_claim_names": {"groups": "src1"}, "_claim_sources": {"src1": {"endpoint": "https://graph"}}}"#)
        #expect(named.value(of: "groups") == .overage)
        #expect(try Self.claims(#"{"hasgroups": true}"#).value(of: "groups") == .overage)
        #expect(try Self.claims(#"{"hasgroups": true}"#).value(of: "roles") == .missing, "only the groups are left out")
        #expect(try Self.claims(#"{"hasgroups": true, "roles": ["Fieldpass.Admin"]}"#).value(of: "roles") == .values(["Fieldpass.Admin"]))
    }

    @Test func userinfoFillsInOnlyWhatTheIDTokenLacks() throws {
        let idToken = try Self.claims(#"{"roles": ["Fieldpass.Manager"], "_claim_names": {"groups": "src1"}}"#)
        let userInfo = try Self.claims(#"{"roles": ["Fieldpass.Admin"], "groups": ["crew-North"], "teams": ["crew-South"]}"#)
        #expect(idToken.value(of: "roles", fallback: userInfo) == .values(["Fieldpass.Manager"]))
        #expect(idToken.value(of: "groups", fallback: userInfo) == .overage)
        #expect(idToken.value(of: "teams", fallback: userInfo) == .values(["crew-South"]))
    }
}
