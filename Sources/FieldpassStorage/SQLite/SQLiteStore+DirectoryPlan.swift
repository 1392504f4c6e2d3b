import FieldpassDomain
import Foundation
import GRDB

extension SQLiteStore {
    /// Applies the writes a directory rule decided, in order, in the caller's transaction.
    /// Returns whether it ended sign-ins under way, whose devices are then to be woken.
    @discardableResult
    static func apply(_ plan: DirectoryPlan, _ db: Database, environmentID: String, now: Date) throws -> Bool {
        let timestamp = now.timeIntervalSince1970
        var endedSignIns = false
        for write in plan.writes {
            switch write {
            case .createTeam(let id, let name):
                try db.execute(
                    cached: "INSERT INTO teams (id, environment_id, name, created_at) VALUES (?, ?, ?, ?)",
                    arguments: [id, environmentID, name, timestamp]
                )
            case .renameTeam(let team, let name):
                try db.execute(cached: TeamStatements.rename.sqlite, arguments: [name, team.id])
            case .deleteTeam(let team):
                try db.execute(cached: TeamStatements.delete.sqlite, arguments: [team.id])
            case .addMember(let teamID, let userID):
                try db.execute(cached: TeamStatements.addMember.sqlite, arguments: [teamID, userID, timestamp])
            case .removeMember(let teamID, let userID):
                try db.execute(cached: TeamStatements.removeMember.sqlite, arguments: [teamID, userID])
            case .setGrant(let userID, let realmPath, let access):
                try db.execute(cached: GrantStatements.set.sqlite, arguments: [userID, realmPath, access.rawValue, timestamp])
            case .removeGrant(let userID, let realmPath):
                try db.execute(cached: GrantStatements.remove.sqlite, arguments: [userID, realmPath])
            case .setRole(let userID, let role):
                try db.execute(cached: UserStatements.setRole.sqlite, arguments: [role.rawValue, userID])
            case .setDisabled(let userID, let disabled):
                try db.execute(cached: UserStatements.setDisabled.sqlite, arguments: [disabled ? timestamp : nil, userID])
            case .clearIdentity(let userID):
                try db.execute(cached: UserStatements.clearIdentity.sqlite, arguments: [userID])
            case .revokeDevice(let id):
                try revokeDevice(db, id: id, now: timestamp)
            case .issueRefreshToken(let issue):
                try issueRefreshToken(db, issue, now: timestamp)
            case .endConsoleSessions(let userID):
                try db.execute(cached: ConsoleStatements.endSessionsOf.sqlite, arguments: [userID])
            case .expireSignIns(let userID):
                let ended = try apply(SessionRules.signInsEnded(userID: userID, now: timestamp), db)
                endedSignIns = endedSignIns || !ended.moved.isEmpty
            case .setEmail(let userID, let email):
                try db.execute(cached: "UPDATE users SET email = ? WHERE id = ?", arguments: [email, userID])
            case .saveScimProfile(let userID, let profile):
                try saveProfile(db, userID: userID, profile: profile, now: now)
            case .markScimRemoved(let userID):
                try db.execute(cached: ScimStatements.markRemoved.sqlite, arguments: [timestamp, userID])
            case .createScimGroup(let id, let teamID, let displayName, let externalID):
                try db.execute(
                    cached: ScimStatements.createGroup.sqlite, arguments: [id, environmentID, teamID, displayName, externalID, timestamp])
            case .updateScimGroup(let id, let displayName, let externalID):
                try db.execute(cached: ScimStatements.updateGroup.sqlite, arguments: [displayName, externalID, timestamp, id])
            case .deleteScimGroup(let id):
                try db.execute(cached: ScimStatements.deleteGroup.sqlite, arguments: [id])
            case .addRoleGroupMember(let groupID, let userID):
                try db.execute(cached: ScimStatements.addRoleGroupMember.sqlite, arguments: [groupID, userID])
            case .removeRoleGroupMember(let groupID, let userID):
                try db.execute(cached: ScimStatements.removeRoleGroupMember.sqlite, arguments: [groupID, userID])
            case .recomputeRoles(let recompute):
                try recomputeRoles(recompute, db, environmentID: environmentID, now: timestamp)
            case .createSharedDevice(let device, let codeHash):
                try db.execute(
                    cached: SharedDeviceTables.insert.sqlite,
                    arguments: [
                        device.id, environmentID, device.name, device.teamID, codeHash, timestamp,
                        device.enrollmentExpiresAt.timeIntervalSince1970,
                    ])
            case .enrollSharedDevice(let id, let keyThumbprint):
                try db.execute(cached: SharedDeviceTables.enroll.sqlite, arguments: [timestamp, keyThumbprint, id])
            case .unenrollSharedDevice(let id):
                try db.execute(cached: SharedDeviceTables.unenroll.sqlite, arguments: [timestamp, id])
            case .startShift(let shift):
                try db.execute(
                    cached: ShiftTables.insert.sqlite,
                    arguments: [
                        shift.id, shift.sharedDeviceID, environmentID, shift.userID, shift.email, timestamp, ShiftTables.stored(shift.amr),
                        shift.pinIssuedBy,
                    ])
                try shiftEvent(db, .shiftStarted, shift, reason: nil, now: timestamp)
            case .endShift(let shift, let reason, let actor):
                // Ended meanwhile (a limit and an admin at once): its end is told once.
                guard
                    try Row.fetchOne(db.cachedStatement(sql: ShiftTables.end.sqlite), arguments: [timestamp, reason.rawValue, shift.id])
                        != nil
                else { continue }
                try shiftEvent(db, .shiftEnded, shift, reason: reason, now: timestamp)
                try revokeDevice(db, id: shift.id, now: timestamp)
                try audit(db, environmentID: environmentID, .shiftEnded(shift, reason: reason, actor: actor), now: now)
            case .saveBadge(let badge):
                try db.execute(
                    cached: BadgeTables.save.sqlite,
                    arguments: [
                        badge.id, badge.userID, environmentID, badge.badgeHash, badge.pinHash, badge.issuedAt.timeIntervalSince1970,
                        badge.expiresAt.timeIntervalSince1970, badge.pinIssuedBy,
                    ])
            case .deleteBadge(let userID):
                try db.execute(cached: BadgeTables.delete.sqlite, arguments: [userID])
            case .setBadgePin(let badgeID, let pinHash, let temporary, let issuedBy):
                try db.execute(cached: BadgeTables.setPin.sqlite, arguments: [pinHash, temporary, badgeID, issuedBy])
            case .recordPinFailure(let badgeID, let locks):
                try db.execute(cached: BadgeTables.recordFailure.sqlite, arguments: [locks ? timestamp : nil, badgeID])
            case .createShiftDevice(let id, let userID, let name):
                try db.execute(cached: BadgeTables.insertShiftDevice.sqlite, arguments: [id, userID, name, timestamp])
            case .audit(let entry):
                try audit(db, environmentID: environmentID, entry, now: now)
            }
        }
        return endedSignIns
    }

    /// Stores the device's next event of `shift`, numbered by the device's counter.
    private static func shiftEvent(
        _ db: Database, _ type: ShiftEvent.Kind, _ shift: ShiftRecord, reason: ShiftEndReason?, now: Double
    )
        throws
    {
        guard let seq = try Int.fetchOne(db.cachedStatement(sql: ShiftTables.nextEventSeq.sqlite), arguments: [shift.sharedDeviceID])
        else { throw StoreInconsistency("the shift's device \(shift.sharedDeviceID) is gone") }
        try db.execute(
            cached: ShiftTables.insertEvent.sqlite,
            arguments: [shift.sharedDeviceID, seq, type.rawValue, shift.id, shift.userID, shift.email, reason?.rawValue, now])
    }

    /// The caller as this transaction reads them (``DirectoryAuthority/authorize(_:current:_:)``).
    static func authorize(_ db: Database, _ caller: DirectoryCaller, _ action: DirectoryAction = .administer) throws -> DirectoryCaller {
        let current = try caller.person.flatMap { try fetchUser(db, id: $0.id, environmentID: caller.environmentID) }
        return try DirectoryAuthority.authorize(caller, current: current, action)
    }

    /// The devices of the person not revoked yet.
    static func liveDeviceIDs(_ db: Database, userID: String) throws -> [String] {
        try String.fetchAll(db.cachedStatement(sql: DeviceStatements.live.sqlite), arguments: [userID])
    }
}
