/// A session a ``SessionMove`` moved, as both stores return it from their update.
struct MovedSession: Sendable {
    var id: String
    var environmentID: String
    var userID: String
    var deviceID: String
}
