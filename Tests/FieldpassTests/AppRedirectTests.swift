import Foundation
import Hummingbird
import Testing
@testable import Fieldpass
@testable import FieldpassDomain

@Suite("The way back to the app")
struct AppRedirectTests {
    @Test(arguments: [
        "com.example.fieldapp:/signed-in", "com.example.fieldapp://callback", "https://app.example.com/signed-in?from=fieldpass",
        "http://127.0.0.1:8765/done", "http://[::1]:8765/done",
    ])
    func registrableURIs(_ uri: String) {
        #expect(AppRedirectURI.problem(uri) == nil)
    }

    @Test(arguments: [
        "", "signed-in", "fieldapp:/signed-in", "Com.Example.App:/x", "com.example.app:/x#frag", "https://app.example.com/#",
        "https://user:pw@app.example.com/x", "http://app.example.com/x", "http://localhost:8765/x", "http://127.0.0.1/x",
        "https:///x", "https://" + String(repeating: "a", count: 600) + ".example.com/",
    ])
    func refusedURIs(_ uri: String) {
        #expect(AppRedirectURI.problem(uri) != nil)
    }

    @Test func aSignInThatEndedWellSaysSoAndGivesTheStateBack() {
        let response = AppRedirect(appReturn: AppReturn(uri: "com.example.fieldapp:/signed-in", state: "a b+c&d=é"))
            .response(.signedIn)
        #expect(response.status == .seeOther)
        #expect(response.headers[.location] == "com.example.fieldapp:/signed-in?result=signed_in&app_state=a%20b%2Bc%26d%3D%C3%A9")
        #expect(response.headers[.cacheControl] == "no-store")
    }

    @Test func aFailureNamesItsCodeAfterTheURIsOwnQuery() {
        let response = AppRedirect(appReturn: AppReturn(uri: "https://app.example.com/done?from=fieldpass", state: nil))
            .response(.failed(code: "browser_mismatch"))
        #expect(response.headers[.location] == "https://app.example.com/done?from=fieldpass&result=login_failed&error=browser_mismatch")
    }
}
