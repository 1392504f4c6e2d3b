import Testing
@testable import Fieldpass
@testable import FieldpassDomain

@Suite("Session events as stored, and their frames")
struct SessionEventStoredFormTests {
    static let events: [SessionEvent] = [
        .token(accessToken: "at", refreshToken: "rt", expiresIn: 300), .realmInitialized(realmPath: "/acme/users/u1"),
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

    @Test func aStoredFormThatNamesNoKnownEventIsAnInconsistency() {
        #expect(throws: StoreInconsistency.self) { try SessionEvent(storedForm: #"{"type":"token"}"#) }
        #expect(throws: StoreInconsistency.self) { try SessionEvent(storedForm: #"{"type":"party"}"#) }
    }

    @Test func theSocketFrameAddsTheSequenceNumber() throws {
        let stored = StoredEvent(rowID: 7, sessionID: "s1", seq: 2, event: .realmInitialized(realmPath: "/users/u1"), storedAt: 0)
        #expect(try stored.frame() == #"{"realm_path":"/users/u1","seq":2,"type":"realm_initialized"}"#)
        let token = StoredEvent(rowID: 8, sessionID: "s1", seq: 1, event: Self.events[0], storedAt: 0)
        #expect(
            try token.frame()
                == #"{"access_token":"at","expires_in":300,"refresh_token":"rt","seq":1,"token_type":"Bearer","type":"token"}"#)
    }
}
