import Testing
@testable import FieldpassDomain

@Suite("Login failure reasons")
struct LoginFailureReasonTests {
    @Test(arguments: ["access_denied", "login_required", "browser_mismatch", "identity_in_use", "idp_unavailable"])
    func aListedCodeKeepsItsLabel(code: String) {
        #expect(LoginFailureReason.label(code) == code)
    }

    @Test(arguments: ["made_up", "ACCESS_DENIED", "", "access_denied_", "other"])
    func anyOtherCodeCountsAsOther(code: String) {
        #expect(LoginFailureReason.label(code) == "other")
    }
}
