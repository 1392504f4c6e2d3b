/// A configuration problem found at start-up; the message names the key.
public struct ConfigurationError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The dotted key at fault, e.g. `server.port`.
    public let key: String
    /// What is wrong with it.
    public let problem: String

    /// Creates an error for `key`.
    public init(key: String, _ problem: String) {
        self.key = key
        self.problem = problem
    }

    /// `key: problem`, fit for a start-up message.
    public var description: String { "\(key): \(problem)" }
}
