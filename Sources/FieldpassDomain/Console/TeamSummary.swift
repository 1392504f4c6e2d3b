/// A team as the console's lists show it: its size, not its members' ids, which a company's
/// largest team has thousands of.
public struct TeamSummary: Sendable, Equatable {
    public var id: String
    public var name: String
    public var memberCount: Int
    /// Whether the person the list is for is one of the members.
    public var includesViewer: Bool

    public init(id: String, name: String, memberCount: Int, includesViewer: Bool) {
        self.id = id
        self.name = name
        self.memberCount = memberCount
        self.includesViewer = includesViewer
    }
}
