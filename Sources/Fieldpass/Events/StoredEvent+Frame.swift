import FieldpassDomain

extension StoredEvent {
    /// The JSON text frame the socket sends, `seq` included.
    func frame() throws -> String {
        var frame = EventFrame(seq: seq, type: event.type)
        switch event {
        case .token(let accessToken, let refreshToken, let expiresIn):
            frame.accessToken = accessToken
            frame.refreshToken = refreshToken
            frame.tokenType = "Bearer"
            frame.expiresIn = expiresIn
        case .realmInitialized(let realmPath), .dataReady(let realmPath):
            frame.realmPath = realmPath
        case .loginFailed(let error, let description):
            frame.error = error
            frame.errorDescription = description
        case .sessionExpired:
            break
        }
        return try StableJSON.text(frame)
    }
}
