import FieldpassDomain

extension StoredEvent {
    /// The JSON text frame the socket sends, `seq` included.
    func frame() throws -> String {
        let fields = SessionEventFields(event)
        let frame = EventFrame(
            seq: seq, type: fields.type, accessToken: fields.accessToken, refreshToken: fields.refreshToken,
            tokenType: fields.accessToken == nil ? nil : fields.tokenType ?? "Bearer", expiresIn: fields.expiresIn,
            realmPath: fields.realmPath,
            error: fields.error, errorDescription: fields.errorDescription
        )
        return try StableJSON.text(frame)
    }
}
