import Testing
@testable import FieldpassDomain

@Suite("Session events as stored")
struct SessionEventStoredFormTests {
    static let events: [SessionEvent] = [
        .token(accessToken: "at", refreshToken: "rt", expiresIn: 300),
        .token(accessToken: "at", refreshToken: "rt", expiresIn: 300, tokenType: "DPoP"), .realmInitialized(realmPath: "/acme/users/u1"),
        .dataReady(realmPath: "/acme/users/u1"), .loginFailed(error: "access_denied", description: "No"), .sessionExpired,
    ]

    @Test(arguments: events)
    func everyEventReadsBackAsStored(event: SessionEvent) throws {
        let stored = try event.storedForm()
        #expect(!stored.contains("\"seq\""))
        #expect(try SessionEvent(storedForm: stored) == event)
    }

    @Test func aFrameStoredWholeByAnEarlierVersionStillReads() throws {
        let old = #"{"access_token":"at","expires_in":300,"refresh_token":"rt","seq":1,"token_type":"Bearer","type":"token"}"#
        #expect(try SessionEvent(storedForm: old) == .token(accessToken: "at", refreshToken: "rt", expiresIn: 300))
    }

    @Test func onlyABoundTokensTypeIsStored() throws {
        #expect(!(try SessionEvent.token(accessToken: "at", refreshToken: "rt", expiresIn: 300).storedForm()).contains("token_type"))
        let bound = try SessionEvent.token(accessToken: "at", refreshToken: "rt", expiresIn: 300, tokenType: "DPoP").storedForm()
        #expect(bound.contains(#""token_type":"DPoP""#))
    }

    @Test func aStoredFormThatNamesNoKnownEventIsAnInconsistency() {
        #expect(throws: StoreInconsistency.self) { try SessionEvent(storedForm: #"{"type":"token"}"#) }
        #expect(throws: StoreInconsistency.self) { try SessionEvent(storedForm: #"{"type":"party"}"#) }
    }
}
