import Testing
@testable import Fieldpass
@testable import FieldpassDomain
@testable import FieldpassStorage

@Suite("Login failure reasons and texts")
struct LoginFailureReasonTests {
    @Test(arguments: ["access_denied", "login_required", "browser_mismatch", "identity_in_use", "idp_unavailable"])
    func aListedCodeKeepsItsLabel(code: String) {
        #expect(LoginFailureReason.label(code) == code)
    }

    @Test(arguments: ["made_up", "ACCESS_DENIED", "", "access_denied_", "other"])
    func anyOtherCodeCountsAsOther(code: String) {
        #expect(LoginFailureReason.label(code) == "other")
    }

    @Test func anIdPsDescriptionIsCutTo200PrintableCharacters() {
        let text = LoginErrorText.description(String(repeating: "é\u{0301}\u{0007}\n", count: 500))
        #expect(text.unicodeScalars.count == 200)
        #expect(!text.unicodeScalars.contains { $0 == "\u{0007}" || $0 == "\n" })
    }
}
