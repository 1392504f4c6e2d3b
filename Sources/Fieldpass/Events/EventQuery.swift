import Hummingbird

/// The validated query of an event socket or long-poll request: the session, and the last
/// `seq` the device has (`after`, default 0).
struct EventQuery {
    let sessionID: String
    let after: Int

    init(_ request: Request) throws {
        let parameters = request.uri.queryParameters
        guard let sessionID = parameters.get("session_id"), OpaqueToken.isWellFormed(sessionID) else {
            throw APIError.invalidRequest("session_id is missing or malformed.")
        }
        self.sessionID = sessionID
        after = try QueryValue.integer(parameters.get("after"), name: "after", in: 0...Int.max) ?? 0
    }
}
