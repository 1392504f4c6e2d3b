/// The `badges:` block: how long a badge works (`lifetime`, seconds, default 31,536,000), how
/// many digits a PIN has (`pin_length`, 6 to 20, default 8), and how many wrong PINs in a row
/// lock the badge (`max_failed_pins`, default 5); and, from `environments.<id>.badges`, the
/// environments whose managers issue badges and reset PINs for their teams' workers
/// (`managers_issue`, default `false`: only admins and the CLI do).
public struct BadgeSettings: Sendable, Equatable {
    public var lifetime: Int
    public var pinLength: Int
    public var maxFailedPins: Int
    /// The environments that opted in to managers making their workers' temporary PINs, which
    /// let a manager start a shift as the worker (a trust decision, see `Docs/trust.md`).
    public var managersIssueIn: Set<String>

    public init(lifetime: Int = 31_536_000, pinLength: Int = 8, maxFailedPins: Int = 5, managersIssueIn: Set<String> = []) {
        self.lifetime = lifetime
        self.pinLength = pinLength
        self.maxFailedPins = maxFailedPins
        self.managersIssueIn = managersIssueIn
    }

    /// Whether the managers of `environmentID` issue badges and reset PINs.
    public func managersIssue(in environmentID: String) -> Bool {
        managersIssueIn.contains(environmentID)
    }
}
