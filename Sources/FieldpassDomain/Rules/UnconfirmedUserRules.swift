/// Which people `users.unconfirmed_retention` removes: never signed in, last registered
/// before the cutoff, no session still running, and nothing an admin gave them (a role, a
/// team, a grant, a disabling), which shows someone means to keep them.
package enum UnconfirmedUserRules {
    /// A person who never signed in and was created before the cutoff, with what decides.
    package struct Candidate: Sendable, Equatable {
        package var id: String
        package var role: String
        package var disabled: Bool
        /// The newest of their sessions' registrations, if any.
        package var lastRegisteredAt: Double?
        /// Any session of theirs not ended yet.
        package var hasRunningSession: Bool
        package var inTeam: Bool
        package var hasGrant: Bool

        package init(
            id: String, role: String, disabled: Bool, lastRegisteredAt: Double?, hasRunningSession: Bool, inTeam: Bool,
            hasGrant: Bool
        ) {
            self.id = id
            self.role = role
            self.disabled = disabled
            self.lastRegisteredAt = lastRegisteredAt
            self.hasRunningSession = hasRunningSession
            self.inTeam = inTeam
            self.hasGrant = hasGrant
        }
    }

    package static func isRemovable(_ candidate: Candidate, cutoff: Double) -> Bool {
        candidate.role == DirectoryRules.newcomerRole.rawValue && !candidate.disabled && !candidate.hasRunningSession
            && (candidate.lastRegisteredAt ?? 0) < cutoff && !candidate.inTeam && !candidate.hasGrant
    }

    /// The removable `candidates`, with what goes with them.
    package static func removal(_ candidates: [Candidate], cutoff: Double) -> UnconfirmedRemoval {
        UnconfirmedRemoval(userIDs: candidates.filter { isRemovable($0, cutoff: cutoff) }.map(\.id))
    }

    /// What removing a person forgets with them: the audit entries about them (their target),
    /// and the lifecycle events that name them (whose body holds the marker).
    package static func forgottenHistory(of userID: String) -> (auditTarget: String, eventBodyMarker: String) {
        (AuditRecord.userTarget(userID), "\"id\":\"\(userID)\"")
    }
}
