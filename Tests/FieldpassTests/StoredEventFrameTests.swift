import Testing
@testable import Fieldpass
@testable import FieldpassDomain

@Suite("Session event frames")
struct StoredEventFrameTests {
    @Test func theSocketFrameAddsTheSequenceNumber() throws {
        let stored = StoredEvent(rowID: 7, sessionID: "s1", seq: 2, event: .realmInitialized(realmPath: "/users/u1"), storedAt: 0)
        #expect(try stored.frame() == #"{"realm_path":"/users/u1","seq":2,"type":"realm_initialized"}"#)
        let token = StoredEvent(
            rowID: 8, sessionID: "s1", seq: 1, event: .token(accessToken: "at", refreshToken: "rt", expiresIn: 300), storedAt: 0)
        #expect(
            try token.frame()
                == #"{"access_token":"at","expires_in":300,"refresh_token":"rt","seq":1,"token_type":"Bearer","type":"token"}"#)
    }
}
