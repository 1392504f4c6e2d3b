/// Everything one change to people or teams decided: the writes, with their audit entries, in
/// the order a store applies them. A rule returns a plan from facts a store read; the store
/// applies it in the same transaction. An empty plan means the change changes nothing, so
/// nothing is written or audited.
package struct DirectoryPlan: Sendable, Equatable {
    package var writes: [DirectoryWrite]

    package init(_ writes: [DirectoryWrite] = []) {
        self.writes = writes
    }

    /// The plan of a change that changes nothing.
    package static let unchanged = DirectoryPlan()

    /// The people whose record or reach the plan changes, each once, in the order first
    /// written: every instance forgets what it remembered of them (``StandingChange/user(id:)``).
    package var affectedUsers: [String] {
        var seen: Set<String> = []
        return writes.flatMap(\.affectedUsers).filter { seen.insert($0).inserted }
    }
}
