import FieldpassDomain

/// A directory plan's writes as the stores run them. Consecutive membership changes and audit
/// entries read nothing that the others of their run write, so a run costs one statement for
/// each unbroken stretch of one kind of membership change of one team or group, then one for
/// all its audit entries, instead of a round trip per write: a SCIM PATCH that adds 250 people
/// to a team holds its locks for three statements, not 500. Every other write, and a run of
/// one, is a step alone, and no write moves past one of them.
struct DirectoryPlanSteps: Sequence {
    enum Step: Equatable {
        case one(DirectoryWrite)
        case members(MembershipBatch)
        case audits([AuditRecord])
    }

    private let steps: [Step]

    init(_ writes: [DirectoryWrite]) {
        var steps: [Step] = []
        var run: [DirectoryWrite] = []
        func endRun() {
            defer { run = [] }
            guard run.count > 1 else {
                steps += run.map(Step.one)
                return
            }
            var batch: MembershipBatch?
            for write in run {
                guard case let (change, groupID, userID)? = MembershipBatch.change(write) else { continue }
                if batch?.change == change, batch?.groupID == groupID {
                    batch?.userIDs.append(userID)
                } else {
                    if let batch { steps.append(.members(batch)) }
                    batch = MembershipBatch(change: change, groupID: groupID, userIDs: [userID])
                }
            }
            if let batch { steps.append(.members(batch)) }
            let audits = run.compactMap { write in if case .audit(let entry) = write { entry } else { nil } }
            if !audits.isEmpty { steps.append(.audits(audits)) }
        }
        for write in writes {
            if case .audit = write {
                run.append(write)
            } else if MembershipBatch.change(write) != nil {
                run.append(write)
            } else {
                endRun()
                steps.append(.one(write))
            }
        }
        endRun()
        self.steps = steps
    }

    func makeIterator() -> IndexingIterator<[Step]> { steps.makeIterator() }
}

/// People joining, or leaving, one team or one role group, in one statement.
struct MembershipBatch: Equatable {
    enum Change: Equatable { case joinTeam, leaveTeam, joinRoleGroup, leaveRoleGroup }

    let change: Change
    let groupID: String
    var userIDs: [String]

    /// The membership change `write` makes, if it is one.
    static func change(_ write: DirectoryWrite) -> (Change, groupID: String, userID: String)? {
        switch write {
        case .addMember(let teamID, let userID): (.joinTeam, teamID, userID)
        case .removeMember(let teamID, let userID): (.leaveTeam, teamID, userID)
        case .addRoleGroupMember(let groupID, let userID): (.joinRoleGroup, groupID, userID)
        case .removeRoleGroupMember(let groupID, let userID): (.leaveRoleGroup, groupID, userID)
        default: nil
        }
    }
}
