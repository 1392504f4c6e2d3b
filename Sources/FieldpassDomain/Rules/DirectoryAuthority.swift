/// Whether a caller may make a directory change, decided inside the change's transaction on
/// facts read there: the calling person as they stand now, and what the IdP owns (a SCIM
/// group's team, what the sign-in's claims set). Each store operation that changes people,
/// teams, badges or shared devices asks here before it writes, for every caller: who may
/// change whom is answered here only.
package enum DirectoryAuthority {
    /// The caller as the transaction sees them. A person calling is given with their record
    /// as read there (`current`, `nil` when they are gone): someone demoted or disabled since
    /// their request was authenticated is refused.
    package static func authorize(
        _ caller: DirectoryCaller, current: UserRecord?, _ action: DirectoryAction
    ) throws(DirectoryError) -> DirectoryCaller {
        let standing: DirectoryCaller
        switch caller {
        case .admin, .console:
            guard let current, !current.disabled else { throw .notAllowed(action) }
            standing = caller.replacingPerson(with: current)
        case .service, .scim, .idp, .cli:
            standing = caller
        }
        guard standing.may(action) else { throw .notAllowed(action) }
        return standing
    }

    /// A SCIM group's team (its name, existence and members) is the IdP's.
    package static func checkTeamChange(by caller: DirectoryCaller, scimManaged: Bool) throws(DirectoryError) {
        if scimManaged, !caller.isIdentityProvider { throw .teamManagedByScim }
    }

    /// A membership of a SCIM group's team, or of a team the sign-in's claims set, is the IdP's.
    package static func checkMembershipChange(
        by caller: DirectoryCaller, of team: TeamRecord, scimManaged: Bool, managed: ClaimMappings
    ) throws(DirectoryError) {
        guard !caller.isIdentityProvider else { return }
        try checkTeamChange(by: caller, scimManaged: scimManaged)
        try managed.checkMembershipChange(teamName: team.name)
    }

    /// Roles the sign-in's claims (or SCIM role groups) set are the IdP's.
    package static func checkRoleChange(by caller: DirectoryCaller, managed: ClaimMappings) throws(DirectoryError) {
        guard !caller.isIdentityProvider else { return }
        try managed.checkRoleChange()
    }

    /// Signing out a device of the person `userID`: anyone may sign out their own devices,
    /// whatever their role, as they called; anyone else needs the right to administer
    /// (``authorize(_:current:_:)``, `current` being the calling person as read now). Answers
    /// the caller the change is made as, and whether they sign out their own device.
    package static func authorizeDeviceSignOut(
        _ caller: DirectoryCaller, current: UserRecord?, userID: String
    ) throws(DirectoryError) -> (caller: DirectoryCaller, byThemselves: Bool) {
        if caller.person?.id == userID { return (caller, true) }
        return (try authorize(caller, current: current, .administer), false)
    }

    /// Disabling `target`: an admin who disabled themselves could not undo it without the CLI.
    package static func checkDisable(_ disabled: Bool, of target: UserRecord, by caller: DirectoryCaller) throws(DirectoryError) {
        if disabled, caller.person?.id == target.id { throw .cannotDisableSelf }
    }

    /// Whether `caller` looks after `person`'s badge (issues, revokes and resets it): an admin
    /// anyone's of the environment, a manager the workers who share a team with him. Never a manager's fellow manager's or an
    /// admin's: a badge signs its holder in with their role, so a manager who could issue an
    /// admin's badge (and so learn its PIN) could sign in as that admin.
    package static func looksAfter(
        _ person: UserRecord, personTeams: Set<String>, callerTeams: Set<String>, _ caller: DirectoryCaller
    ) -> Bool {
        guard let me = caller.person, me.role != .admin else { return true }
        return me.role == .manager && person.role == .worker && !personTeams.isDisjoint(with: callerTeams)
    }

    /// Whether `caller` looks after `device`, and so sees it.
    package static func looksAfter(_ device: SharedDeviceRecord, callerTeams: Set<String>, _ caller: DirectoryCaller) -> Bool {
        guard let person = caller.person, person.role != .admin else { return true }
        return person.role == .manager && device.teamID.map(callerTeams.contains) == true
    }
}
