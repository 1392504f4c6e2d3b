import FieldpassDomain
import Foundation

extension StoreTransaction {
    /// Applies the writes a directory rule decided, in order, and tells every instance whose
    /// standing they changed. Callers hold the locks of the rows the rule read. Returns
    /// whether it ended sign-ins under way, whose devices are then to be woken.
    @discardableResult
    func apply(_ plan: DirectoryPlan, environmentID: String, now: Date) async throws -> Bool {
        var endedSignIns = false
        for step in DirectoryPlanSteps(plan.writes) {
            switch step {
            case .one(let write): endedSignIns = try await apply(write, environmentID: environmentID, now: now) || endedSignIns
            case .members(let change): try await apply(change, at: now.timeIntervalSince1970)
            case .audits(let entries): try await audit(entries, environmentID: environmentID, now: now)
            }
        }
        try await announce(plan.affectedUsers.map { .user(id: $0) })
        return endedSignIns
    }

    private func apply(_ write: DirectoryWrite, environmentID: String, now: Date) async throws -> Bool {
        let timestamp = now.timeIntervalSince1970
        switch write {
        case .createTeam(let id, let name):
            // The unique name index decides a race the rule could not see: this insert waits
            // for a concurrent create (or rename) to the same name and, if that commits,
            // inserts nothing.
            guard try await value(TeamStatements.create, id, environmentID, name, timestamp, as: String.self) != nil else {
                throw DirectoryError.teamNameTaken
            }
        case .renameTeam(let team, let name):
            do {
                try await execute(TeamStatements.rename, name, team.id)
            } catch let error where isUniqueViolation(error) {
                // The name was taken by a transaction that committed after the rule's check.
                throw DirectoryError.teamNameTaken
            }
        case .deleteTeam(let team):
            try await execute(TeamStatements.delete, team.id)
        case .addMember(let teamID, let userID):
            try await execute(TeamStatements.addMember, teamID, userID, timestamp)
        case .removeMember(let teamID, let userID):
            try await execute(TeamStatements.removeMember, teamID, userID)
        case .setGrant(let userID, let realmPath, let access):
            try await execute(GrantStatements.set, userID, realmPath, access.rawValue, timestamp)
        case .removeGrant(let userID, let realmPath):
            try await execute(GrantStatements.remove, userID, realmPath)
        case .setRole(let userID, let role):
            try await execute(UserStatements.setRole, role.rawValue, userID)
        case .setDisabled(let userID, let disabled):
            try await execute(UserStatements.setDisabled, disabled ? timestamp : nil, userID)
        case .clearIdentity(let userID):
            try await execute(UserStatements.clearIdentity, userID)
        case .revokeDevice(let id):
            try await revokeDevice(id: id, now: timestamp)
        case .issueRefreshToken(let issue):
            try await self.issue(issue, now: timestamp)
        case .endConsoleSessions(let userID):
            try await execute(ConsoleStatements.endSessionsOf, userID)
        case .expireSignIns(let userID):
            return try await !apply(SessionRules.signInsEnded(userID: userID, now: timestamp)).moved.isEmpty
        case .setEmail(let userID, let email):
            // Another person's email, taken by a transaction that committed after the rule's check.
            guard try await value(UserStatements.setEmail, email, userID, environmentID, as: Int.self) != nil else {
                throw ScimError.uniqueness("Another user has this userName.")
            }
        case .saveScimProfile(let userID, let profile):
            try await execute(
                ScimStatements.saveProfile, userID, profile.externalID, profile.displayName, try ScimColumns.name(profile),
                try ScimColumns.emails(profile), timestamp)
        case .markScimRemoved(let userID):
            try await execute(ScimStatements.markRemoved, timestamp, userID)
        case .createScimGroup(let id, let teamID, let displayName, let externalID):
            try await execute(ScimStatements.createGroup, id, environmentID, teamID, displayName, externalID, timestamp)
        case .updateScimGroup(let id, let displayName, let externalID):
            try await execute(ScimStatements.updateGroup, displayName, externalID, timestamp, id)
        case .deleteScimGroup(let id):
            try await execute(ScimStatements.deleteGroup, id)
        case .addRoleGroupMember(let groupID, let userID):
            try await execute(ScimStatements.addRoleGroupMember, groupID, userID)
        case .removeRoleGroupMember(let groupID, let userID):
            try await execute(ScimStatements.removeRoleGroupMember, groupID, userID)
        case .recomputeRoles(let recompute):
            try await apply(recompute, environmentID: environmentID, now: now)
        case .createSharedDevice(let device, let codeHash):
            try await execute(
                SharedDeviceTables.insert, device.id, environmentID, device.name, device.teamID, codeHash, timestamp,
                device.enrollmentExpiresAt.timeIntervalSince1970)
        case .enrollSharedDevice(let id, let keyThumbprint):
            try await execute(SharedDeviceTables.enroll, timestamp, keyThumbprint, id)
        case .unenrollSharedDevice(let id):
            try await execute(SharedDeviceTables.unenroll, timestamp, id)
        case .startShift(let shift):
            try await execute(
                ShiftTables.insert, shift.id, shift.sharedDeviceID, environmentID, shift.userID, shift.email,
                shift.startedAt.timeIntervalSince1970, ShiftTables.stored(shift.amr), shift.pinIssuedBy, shift.offlinePermitID)
            try await storeShiftEvent(.shiftStarted, shift, reason: nil, now: timestamp)
        case .endShift(let shift, let reason, let actor):
            // Ended meanwhile (a limit and an admin at once): its end is told once.
            guard try await first(ShiftTables.end, timestamp, reason.rawValue, shift.id) != nil else { return false }
            try await storeShiftEvent(.shiftEnded, shift, reason: reason, now: timestamp)
            try await revokeDevice(id: shift.id, now: timestamp)
            try await audit(.shiftEnded(shift, reason: reason, actor: actor), environmentID: environmentID, now: now)
        case .saveBadge(let badge):
            try await execute(
                BadgeTables.save, badge.id, badge.userID, environmentID, badge.badgeHash, badge.pinHash,
                badge.issuedAt.timeIntervalSince1970, badge.expiresAt.timeIntervalSince1970, badge.pinIssuedBy)
        case .deleteBadge(let userID):
            try await execute(BadgeTables.delete, userID)
        case .setBadgePin(let badgeID, let pinHash, let temporary, let issuedBy):
            try await execute(BadgeTables.setPin, pinHash, temporary, badgeID, issuedBy)
        case .recordOfflineShift(let shift):
            try await execute(
                OfflinePermitTables.insertEndedShift, shift.id, shift.sharedDeviceID, environmentID, shift.userID, shift.email,
                shift.startedAt.timeIntervalSince1970, shift.endedAt?.timeIntervalSince1970, shift.endReason?.rawValue,
                ShiftTables.stored(shift.amr), shift.offlinePermitID)
            try await audit(
                [
                    .shiftStarted(shift),
                    .shiftEnded(shift, reason: shift.endReason ?? .endedOffline, actor: AuditRecord.userTarget(shift.userID)),
                ],
                environmentID: environmentID, now: now)
        case .recordPinFailures(let badgeID, let count, let locks):
            try await execute(BadgeTables.recordFailures, count, locks ? timestamp : nil, badgeID)
        case .storeOfflinePermit(let permit):
            try await execute(
                OfflinePermitTables.insert, permit.id, permit.sharedDeviceID, permit.environmentID, permit.userID, permit.badgeID,
                permit.issuedAt.timeIntervalSince1970, permit.expiresAt.timeIntervalSince1970)
        case .withdrawOfflinePermits(let userID):
            try await execute(OfflinePermitTables.withdraw, timestamp, userID)
        case .countOfflinePinFailures(let permitID, let total):
            try await execute(OfflinePermitTables.countFailures, total, permitID)
        case .createShiftDevice(let id, let userID, let name):
            try await execute(BadgeTables.insertShiftDevice, id, userID, name, timestamp)
        case .audit(let entry):
            try await audit(entry, environmentID: environmentID, now: now)
        }
        return false
    }

    /// Marks a device revoked and its refresh tokens with it; their sealed successors go too.
    /// Callers hold the lock of the device's user.
    func revokeDevice(id: String, now: Double) async throws {
        try await execute(DeviceStatements.revoke, now, id)
        try await announce([.device(id: id)])
        try await execute(DeviceStatements.revokeRefreshTokens, now, id)
    }

    /// Stores the device's next event of `shift`, numbered by the device's counter, whose row
    /// stays locked until the transaction ends: the device's events commit in their order.
    private func storeShiftEvent(_ type: ShiftEvent.Kind, _ shift: ShiftRecord, reason: ShiftEndReason?, now: Double) async throws {
        guard let seq = try await value(ShiftTables.nextEventSeq, shift.sharedDeviceID, as: Int.self) else {
            throw StoreInconsistency("the shift's device \(shift.sharedDeviceID) is gone")
        }
        try await execute(
            ShiftTables.insertEvent, shift.sharedDeviceID, seq, type.rawValue, shift.id, shift.userID, shift.email, reason?.rawValue, now)
    }
}
