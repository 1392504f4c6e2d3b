/// How many event sockets one process holds: a few per session (a device reconnecting
/// before its old socket is found dead), and a total that bounds memory.
public struct SocketLimits: Sendable {
    /// Sockets one session may hold at once.
    public var perSession: Int
    /// Sockets this process holds at once.
    public var total: Int

    public init(perSession: Int, total: Int) {
        self.perSession = perSession
        self.total = total
    }

    /// Why one more socket may not open.
    enum Refusal: Error {
        case sessionFull
        case processFull

        /// The WebSocket close reason the device gets.
        var reason: String {
            switch self {
            case .sessionFull: "This session already has its event sockets open"
            case .processFull: "This server holds as many event sockets as it may"
            }
        }
    }

    /// Whether one more socket fits beside `session` sockets of its session and `all` in all.
    func admit(session: Int, all: Int) throws(Refusal) {
        guard session < perSession else { throw .sessionFull }
        guard all < total else { throw .processFull }
    }
}
