public import FieldpassDomain
public import Foundation
import GRDB

/// Badges on SQLite, each change planned by ``BadgeRules``.
extension SQLiteStore: BadgeStore {
    public func issueBadge(_ badge: BadgeRecord, managersIssue: Bool, by caller: DirectoryCaller, now: Date) async throws {
        try await write { db in
            let (caller, person, personTeams) = try Self.badgeFacts(db, userID: badge.userID, caller)
            let plan = try BadgeRules.issue(
                badge, person: person, personTeams: personTeams, callerTeams: try Self.teamsOf(caller, db), managersIssue: managersIssue,
                by: caller)
            try Self.apply(plan, db, environmentID: caller.environmentID, now: now)
        }
    }

    public func revokeBadge(userID: String, by caller: DirectoryCaller, now: Date) async throws {
        try await write { db in
            let (caller, person, personTeams) = try Self.badgeFacts(db, userID: userID, caller)
            let plan = try BadgeRules.revoke(
                try Self.badge(db, userID: userID), person: person, personTeams: personTeams,
                callerTeams: try Self.teamsOf(caller, db), by: caller)
            try Self.apply(plan, db, environmentID: caller.environmentID, now: now)
        }
    }

    public func resetBadgePin(userID: String, pinHash: String, managersIssue: Bool, by caller: DirectoryCaller, now: Date) async throws {
        try await write { db in
            let (caller, person, personTeams) = try Self.badgeFacts(db, userID: userID, caller)
            let plan = try BadgeRules.resetPin(
                try Self.badge(db, userID: userID), pinHash: pinHash, person: person, personTeams: personTeams,
                callerTeams: try Self.teamsOf(caller, db), managersIssue: managersIssue, by: caller)
            try Self.apply(plan, db, environmentID: caller.environmentID, now: now)
        }
    }

    public func badge(userID: String, environmentID: String) async throws -> BadgeRecord? {
        try await read { db in try Self.badge(db, userID: userID).flatMap { $0.environmentID == environmentID ? $0 : nil } }
    }

    public func badge(hash: String) async throws -> BadgeRecord? {
        try await read { db in try Row.fetchOne(db.cachedStatement(sql: BadgeTables.byHash.sqlite), arguments: [hash]).map(Self.badge) }
    }

    /// The caller as the transaction reads them, the person (of the caller's environment) and
    /// the person's teams.
    private static func badgeFacts(
        _ db: Database, userID: String, _ caller: DirectoryCaller
    ) throws -> (DirectoryCaller, UserRecord?, Set<String>) {
        let caller = try authorize(db, caller, .read)
        let person = try fetchUser(db, id: userID, environmentID: caller.environmentID)
        let teams = Set(try String.fetchAll(db.cachedStatement(sql: SharedDeviceTables.teamsOf.sqlite), arguments: [userID]))
        return (caller, person, teams)
    }

    private static func badge(_ db: Database, userID: String) throws -> BadgeRecord? {
        try Row.fetchOne(db.cachedStatement(sql: BadgeTables.ofPerson.sqlite), arguments: [userID]).map(badge)
    }

    private static func badge(_ row: Row) -> BadgeRecord {
        BadgeRecord(
            id: row["id"], userID: row["user_id"], environmentID: row["environment_id"], badgeHash: row["badge_hash"],
            pinHash: row["pin_hash"], pinTemporary: row["pin_temporary"], pinIssuedBy: row["pin_issued_by"], failedPins: row["failed_pins"],
            lockedAt: (row["locked_at"] as Double?).map(Date.init(timeIntervalSince1970:)),
            issuedAt: Date(timeIntervalSince1970: row["issued_at"]), expiresAt: Date(timeIntervalSince1970: row["expires_at"]))
    }
}
