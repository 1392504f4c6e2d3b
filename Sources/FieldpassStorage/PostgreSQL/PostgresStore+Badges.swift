public import FieldpassDomain
public import Foundation
import PostgresNIO

/// Badges on PostgreSQL, each change planned by ``BadgeRules``. The person's lock comes first,
/// as in every change to a person's devices and tokens, then the badge's and the device's: two
/// sign-ins with one badge, at any instances, decide one after the other, so that no more than
/// `badges.max_failed_pins` wrong PINs are ever tried.
extension PostgresStore: BadgeStore {
    public func issueBadge(_ badge: BadgeRecord, managersIssue: Bool, by caller: DirectoryCaller, now: Date) async throws {
        try await write { connection in
            let (caller, person, personTeams) = try await Self.badgeFacts(connection, userID: badge.userID, caller)
            let plan = try BadgeRules.issue(
                badge, person: person, personTeams: personTeams, callerTeams: try await Self.teamsOf(caller, connection),
                managersIssue: managersIssue, by: caller)
            try await Self.apply(plan, connection, environmentID: caller.environmentID, now: now)
        }
    }

    public func revokeBadge(userID: String, by caller: DirectoryCaller, now: Date) async throws {
        try await write { connection in
            let (caller, person, personTeams) = try await Self.badgeFacts(connection, userID: userID, caller)
            let badge = try await connection.first(PostgresQuery(BadgeTables.ofPerson, userID)).map(Self.badge)
            let plan = try BadgeRules.revoke(
                badge, person: person, personTeams: personTeams, callerTeams: try await Self.teamsOf(caller, connection), by: caller)
            try await Self.apply(plan, connection, environmentID: caller.environmentID, now: now)
        }
    }

    public func resetBadgePin(userID: String, pinHash: String, managersIssue: Bool, by caller: DirectoryCaller, now: Date) async throws {
        try await write { connection in
            let (caller, person, personTeams) = try await Self.badgeFacts(connection, userID: userID, caller)
            let badge = try await connection.first(PostgresQuery(BadgeTables.ofPerson, userID)).map(Self.badge)
            let plan = try BadgeRules.resetPin(
                badge, pinHash: pinHash, person: person, personTeams: personTeams,
                callerTeams: try await Self.teamsOf(caller, connection), managersIssue: managersIssue, by: caller)
            try await Self.apply(plan, connection, environmentID: caller.environmentID, now: now)
        }
    }

    public func badge(userID: String, environmentID: String) async throws -> BadgeRecord? {
        try await read { connection in
            try await connection.first(PostgresQuery(BadgeTables.ofPerson, userID)).map(Self.badge)
                .flatMap { $0.environmentID == environmentID ? $0 : nil }
        }
    }

    public func badge(hash: String) async throws -> BadgeRecord? {
        try await read { connection in try await connection.first(PostgresQuery(BadgeTables.byHash, hash)).map(Self.badge) }
    }

    /// The caller as the transaction reads them, the person (of the caller's environment,
    /// locked) and the person's teams.
    private static func badgeFacts(
        _ connection: PostgresConnection, userID: String, _ caller: DirectoryCaller
    ) async throws -> (DirectoryCaller, UserRecord?, Set<String>) {
        let caller = try await authorize(connection, caller, .read)
        let person = try await fetchUser(connection, id: userID, environmentID: caller.environmentID, forUpdate: true)
        let teams = Set(try await connection.values(PostgresQuery(SharedDeviceTables.teamsOf, userID), as: String.self))
        return (caller, person, teams)
    }

    private static func badge(_ row: PostgresRandomAccessRow) throws -> BadgeRecord {
        BadgeRecord(
            id: try row.get("id"), userID: try row.get("user_id"), environmentID: try row.get("environment_id"),
            badgeHash: try row.get("badge_hash"), pinHash: try row.get("pin_hash"), pinTemporary: try row.get("pin_temporary"),
            pinIssuedBy: try row.get("pin_issued_by", as: String?.self), failedPins: try row.get("failed_pins"),
            lockedAt: try row.get("locked_at", as: Double?.self).map(Date.init(timeIntervalSince1970:)),
            issuedAt: Date(timeIntervalSince1970: try row.get("issued_at")),
            expiresAt: Date(timeIntervalSince1970: try row.get("expires_at")))
    }
}
