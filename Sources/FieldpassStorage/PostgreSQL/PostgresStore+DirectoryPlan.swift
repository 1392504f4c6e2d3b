import FieldpassDomain
import Foundation
import PostgresNIO

extension PostgresStore {
    /// The caller as this transaction reads them (``DirectoryAuthority/authorize(_:current:_:)``).
    static func authorize(
        _ connection: PostgresConnection, _ caller: DirectoryCaller, _ action: DirectoryAction = .administer
    ) async throws -> DirectoryCaller {
        var current: UserRecord?
        if let person = caller.person { current = try await fetchUser(connection, id: person.id, environmentID: caller.environmentID) }
        return try DirectoryAuthority.authorize(caller, current: current, action)
    }

    /// Applies the writes a directory rule decided, in order, in the caller's transaction,
    /// and announces to every instance whose standing they changed. Callers hold the locks of
    /// the rows the rule read.
    static func apply(_ plan: DirectoryPlan, _ connection: PostgresConnection, environmentID: String, now: Date) async throws {
        for step in DirectoryPlanSteps(plan.writes) {
            switch step {
            case .one(let write): try await apply(write, connection, environmentID: environmentID, now: now)
            case .members(let change): try await connection.execute(change.statement(at: now.timeIntervalSince1970))
            case .audits(let entries): try await audit(connection, environmentID: environmentID, entries, now: now)
            }
        }
        try await announce(plan.affectedUsers.map { .user(id: $0) }, on: connection)
    }

    private static func apply(_ write: DirectoryWrite, _ connection: PostgresConnection, environmentID: String, now: Date) async throws {
        let timestamp = now.timeIntervalSince1970
        switch write {
        case .createTeam(let id, let name):
            // The unique name index decides a race the rule could not see: this insert waits
            // for a concurrent create (or rename) to the same name and, if that commits,
            // inserts nothing.
            guard
                try await connection.value(
                    """
                    INSERT INTO teams (id, environment_id, name, created_at)
                    VALUES (\(id), \(environmentID), \(name), \(timestamp))
                    ON CONFLICT (environment_id, lower(name)) DO NOTHING
                    RETURNING id
                    """,
                    as: String.self
                ) != nil
            else { throw DirectoryError.teamNameTaken }
        case .renameTeam(let team, let name):
            do {
                try await connection.execute(PostgresQuery(TeamStatements.rename, name, team.id))
            } catch let error as PSQLError where isUniqueViolation(error) {
                // The name was taken by a transaction that committed after the rule's check.
                throw DirectoryError.teamNameTaken
            }
        case .deleteTeam(let team):
            try await connection.execute(PostgresQuery(TeamStatements.delete, team.id))
        case .addMember(let teamID, let userID):
            try await connection.execute(PostgresQuery(TeamStatements.addMember, teamID, userID, timestamp))
        case .removeMember(let teamID, let userID):
            try await connection.execute(PostgresQuery(TeamStatements.removeMember, teamID, userID))
        case .setGrant(let userID, let realmPath, let access):
            try await connection.execute(PostgresQuery(GrantStatements.set, userID, realmPath, access.rawValue, timestamp))
        case .removeGrant(let userID, let realmPath):
            try await connection.execute(PostgresQuery(GrantStatements.remove, userID, realmPath))
        case .setRole(let userID, let role):
            try await connection.execute(PostgresQuery(UserStatements.setRole, role.rawValue, userID))
        case .setDisabled(let userID, let disabled):
            try await connection.execute(PostgresQuery(UserStatements.setDisabled, disabled ? timestamp : nil, userID))
        case .clearIdentity(let userID):
            try await connection.execute(PostgresQuery(UserStatements.clearIdentity, userID))
        case .revokeDevice(let id):
            try await revokeDevice(connection, id: id, now: timestamp)
        case .issueRefreshToken(let issue):
            try await issueRefreshToken(connection, issue, now: timestamp)
        case .endConsoleSessions(let userID):
            try await connection.execute(PostgresQuery(ConsoleStatements.endSessionsOf, userID))
        case .expireSignIns(let userID):
            try await apply(SessionRules.signInsEnded(userID: userID, now: timestamp), connection)
        case .setEmail(let userID, let email):
            // Another person's email, taken by a transaction that committed after the rule's check.
            guard
                try await connection.value(
                    """
                    UPDATE users SET email = \(email) WHERE id = \(userID)
                      AND NOT EXISTS (SELECT 1 FROM users WHERE environment_id = \(environmentID) AND email = \(email))
                    RETURNING 1
                    """,
                    as: Int.self
                ) != nil
            else { throw ScimError.uniqueness("Another user has this userName.") }
        case .saveScimProfile(let userID, let profile):
            try await saveProfile(connection, userID: userID, profile: profile, now: now)
        case .markScimRemoved(let userID):
            try await connection.execute(PostgresQuery(ScimStatements.markRemoved, timestamp, userID))
        case .createScimGroup(let id, let teamID, let displayName, let externalID):
            try await connection.execute(
                PostgresQuery(ScimStatements.createGroup, id, environmentID, teamID, displayName, externalID, timestamp))
        case .updateScimGroup(let id, let displayName, let externalID):
            try await connection.execute(PostgresQuery(ScimStatements.updateGroup, displayName, externalID, timestamp, id))
        case .deleteScimGroup(let id):
            try await connection.execute(PostgresQuery(ScimStatements.deleteGroup, id))
        case .addRoleGroupMember(let groupID, let userID):
            try await connection.execute(PostgresQuery(ScimStatements.addRoleGroupMember, groupID, userID))
        case .removeRoleGroupMember(let groupID, let userID):
            try await connection.execute(PostgresQuery(ScimStatements.removeRoleGroupMember, groupID, userID))
        case .recomputeRoles(let recompute):
            try await recomputeRoles(recompute, connection, environmentID: environmentID, now: now)
        case .createSharedDevice(let device, let codeHash):
            try await connection.execute(
                PostgresQuery(
                    SharedDeviceTables.insert, device.id, environmentID, device.name, device.teamID, codeHash, timestamp,
                    device.enrollmentExpiresAt.timeIntervalSince1970))
        case .enrollSharedDevice(let id, let keyThumbprint):
            try await connection.execute(PostgresQuery(SharedDeviceTables.enroll, timestamp, keyThumbprint, id))
        case .unenrollSharedDevice(let id):
            try await connection.execute(PostgresQuery(SharedDeviceTables.unenroll, timestamp, id))
        case .startShift(let shift):
            try await connection.execute(
                PostgresQuery(
                    ShiftTables.insert, shift.id, shift.sharedDeviceID, environmentID, shift.userID, shift.email, timestamp,
                    ShiftTables.stored(shift.amr), shift.pinIssuedBy))
            try await shiftEvent(connection, .shiftStarted, shift, reason: nil, now: timestamp)
        case .endShift(let shift, let reason, let actor):
            // Ended meanwhile (a limit and an admin at once): its end is told once.
            guard try await connection.first(PostgresQuery(ShiftTables.end, timestamp, reason.rawValue, shift.id)) != nil else { return }
            try await shiftEvent(connection, .shiftEnded, shift, reason: reason, now: timestamp)
            try await revokeDevice(connection, id: shift.id, now: timestamp)
            try await audit(connection, environmentID: environmentID, .shiftEnded(shift, reason: reason, actor: actor), now: now)
        case .saveBadge(let badge):
            try await connection.execute(
                PostgresQuery(
                    BadgeTables.save, badge.id, badge.userID, environmentID, badge.badgeHash, badge.pinHash,
                    badge.issuedAt.timeIntervalSince1970, badge.expiresAt.timeIntervalSince1970, badge.pinIssuedBy))
        case .deleteBadge(let userID):
            try await connection.execute(PostgresQuery(BadgeTables.delete, userID))
        case .setBadgePin(let badgeID, let pinHash, let temporary, let issuedBy):
            try await connection.execute(PostgresQuery(BadgeTables.setPin, pinHash, temporary, badgeID, issuedBy))
        case .recordPinFailure(let badgeID, let locks):
            try await connection.execute(PostgresQuery(BadgeTables.recordFailure, locks ? timestamp : nil, badgeID))
        case .createShiftDevice(let id, let userID, let name):
            try await connection.execute(PostgresQuery(BadgeTables.insertShiftDevice, id, userID, name, timestamp))
        case .audit(let entry):
            try await audit(connection, environmentID: environmentID, entry, now: now)
        }
    }

    /// Stores the device's next event of `shift`, numbered by the device's counter, whose row
    /// stays locked until the transaction ends: the device's events commit in their order.
    private static func shiftEvent(
        _ connection: PostgresConnection, _ type: ShiftEvent.Kind, _ shift: ShiftRecord, reason: ShiftEndReason?, now: Double
    ) async throws {
        guard let seq = try await connection.value(PostgresQuery(ShiftTables.nextEventSeq, shift.sharedDeviceID), as: Int.self) else {
            throw StoreInconsistency("the shift's device \(shift.sharedDeviceID) is gone")
        }
        try await connection.execute(
            PostgresQuery(
                ShiftTables.insertEvent, shift.sharedDeviceID, seq, type.rawValue, shift.id, shift.userID, shift.email, reason?.rawValue,
                now))
    }

    /// The devices of the person not revoked yet. Callers hold the person's lock, so none can
    /// be added or revoked meanwhile.
    static func liveDeviceIDs(_ connection: PostgresConnection, userID: String) async throws -> [String] {
        try await connection.values(PostgresQuery(DeviceStatements.live, userID), as: String.self)
    }

    /// A `unique_violation` (SQLSTATE 23505).
    static func isUniqueViolation(_ error: PSQLError) -> Bool {
        error.code == .server && error.serverInfo?[.sqlState] == "23505"
    }
}
