/// One write a directory rule decided on. A store applies a ``DirectoryPlan``'s writes in
/// order, in the transaction that read the facts the rule was given, and knows nothing of why.
package enum DirectoryWrite: Sendable, Equatable {
    case createTeam(id: String, name: String)
    /// `team` as it was read, so that its members' reach can be read again.
    case renameTeam(TeamRecord, to: String)
    case deleteTeam(TeamRecord)
    case addMember(teamID: String, userID: String)
    case removeMember(teamID: String, userID: String)
    case setGrant(userID: String, realmPath: String, access: RealmAccess)
    case removeGrant(userID: String, realmPath: String)
    case setRole(userID: String, role: Role)
    case setDisabled(userID: String, disabled: Bool)
    /// The person is no longer bound to an IdP account; their next sign-in binds one.
    case clearIdentity(userID: String)
    /// The person's sign-ins under way end as expired, with a `session_expired` event each.
    case expireSignIns(userID: String)
    /// The device and its refresh tokens (their sealed successors too) are revoked for good.
    case revokeDevice(id: String)
    case endConsoleSessions(userID: String)
    /// A refresh token stored (in a rotation, the token it replaces marked rotated).
    case issueRefreshToken(RefreshTokenIssue)
    case setEmail(userID: String, email: String)
    /// The person's SCIM attributes; SCIM lists them (again).
    case saveScimProfile(userID: String, profile: ScimProfile)
    /// SCIM no longer lists the person.
    case markScimRemoved(userID: String)
    /// A SCIM group's row: a team group's id is its team's.
    case createScimGroup(id: String, teamID: String?, displayName: String, externalID: String?)
    case updateScimGroup(id: String, displayName: String, externalID: String?)
    case deleteScimGroup(id: String)
    /// Role-group memberships change no reach by themselves; the role that follows does.
    case addRoleGroupMember(groupID: String, userID: String)
    case removeRoleGroupMember(groupID: String, userID: String)
    /// Every member of a role group gets the role the rule gives them, in a few statements.
    /// Whom it changes is known only as it applies: a store that tells other instances of
    /// changes tells them of those itself.
    case recomputeRoles(RoleRecompute)
    /// A shared device awaiting enrollment, with the hash of its one-time code.
    case createSharedDevice(SharedDeviceRecord, codeHash: String)
    /// The device enrolled with its key; its code no longer works.
    case enrollSharedDevice(id: String, keyThumbprint: String)
    case unenrollSharedDevice(id: String)
    /// A shift on a shared device, from its ``ShiftRecord/startedAt``, and its `shift_started`
    /// event for the device's apps.
    case startShift(ShiftRecord)
    /// A shift that ran and ended offline, as reported: on record with its start and end
    /// entries in the audit log, no event for the device's apps (they lived it) and no tokens.
    case recordOfflineShift(ShiftRecord)
    /// The shift ends for `reason`, by `actor`, if it is still open: with its `shift_ended`
    /// event, its device record revoked (and so its tokens) and its audit entry
    /// (``AuditRecord/shiftEnded(_:reason:actor:)``). A shift another change ended meanwhile
    /// writes nothing, so that an end is told once, with one reason.
    case endShift(ShiftRecord, reason: ShiftEndReason, actor: String)
    /// The person's badge, replacing the one they had.
    case saveBadge(BadgeRecord)
    case deleteBadge(userID: String)
    /// The badge's PIN, temporary or the worker's own; its failures forgotten, unlocked.
    case setBadgePin(badgeID: String, pinHash: String, temporary: Bool, issuedBy: String?)
    /// `count` more wrong PINs; with `locks`, the badge locked.
    case recordPinFailures(badgeID: String, count: Int, locks: Bool)
    /// An offline permit issued with a badge sign-in.
    case storeOfflinePermit(OfflinePermitRecord)
    /// The person's live offline permits withdrawn now: their badge was revoked or replaced.
    case withdrawOfflinePermits(userID: String)
    /// The running total of wrong PINs the device reported for the permit, counted now.
    case countOfflinePinFailures(permitID: String, total: Int)
    /// The device record of a shift started with a badge, signed in now.
    case createShiftDevice(id: String, userID: String, name: String)
    case audit(AuditRecord)

    /// The people whose record or reach this write changes.
    package var affectedUsers: [String] {
        switch self {
        case .renameTeam(let team, _), .deleteTeam(let team): team.members
        case .addMember(_, let userID), .removeMember(_, let userID), .setGrant(let userID, _, _), .removeGrant(let userID, _),
            .setRole(let userID, _), .setDisabled(let userID, _), .clearIdentity(let userID), .setEmail(let userID, _):
            [userID]
        case .createTeam, .revokeDevice, .issueRefreshToken, .endConsoleSessions, .expireSignIns, .saveScimProfile, .markScimRemoved,
            .createScimGroup,
            .updateScimGroup, .deleteScimGroup,
            .addRoleGroupMember, .removeRoleGroupMember, .recomputeRoles, .createSharedDevice, .enrollSharedDevice,
            .unenrollSharedDevice, .startShift, .endShift, .saveBadge, .deleteBadge, .setBadgePin,
            .recordPinFailures, .storeOfflinePermit, .withdrawOfflinePermits, .countOfflinePinFailures, .recordOfflineShift,
            .createShiftDevice, .audit:
            []
        }
    }
}
