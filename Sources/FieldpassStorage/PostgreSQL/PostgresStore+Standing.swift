import FieldpassDomain
import Foundation
import PostgresNIO

extension PostgresStore {
    /// Tells every instance's ``LiveRevocations``, at commit, that `change` happened.
    static func announce(_ change: StandingChange, on connection: PostgresConnection) async throws {
        try await connection.execute("SELECT pg_notify(\(PostgresChangeListener.channel), \(change.payload))")
    }

    /// Announces `changes` in one round trip, in their order: a SCIM change of a thousand
    /// members tells every instance of each of them without a statement each.
    static func announce(_ changes: [StandingChange], on connection: PostgresConnection) async throws {
        guard !changes.isEmpty else { return }
        try await connection.execute(
            """
            SELECT pg_notify(\(PostgresChangeListener.channel), change.payload)
            FROM unnest(\(changes.map(\.payload))::text[]) WITH ORDINALITY AS change(payload, position) ORDER BY position
            """
        )
    }

    /// Returns once this instance's revocations include what it committed so far, so that a
    /// revocation counts here as soon as the request that made it is answered.
    func revocationsCaughtUp() async {
        await changes.catchUp()
    }

    /// The revoked tokens still worth keeping and every revoked device.
    static func revocationSet(_ connection: PostgresConnection, now: Date) async throws -> RevocationSet {
        var tokens: [String: Double] = [:]
        let keptAfter = now.timeIntervalSince1970 - RevocationSet.expiryMargin
        for row in try await connection.rows("SELECT jti, expires_at FROM revoked_tokens WHERE expires_at > \(keptAfter)") {
            tokens[try row.get("jti")] = try row.get("expires_at", as: Double.self)
        }
        let devices = try await connection.values("SELECT id FROM devices WHERE revoked_at IS NOT NULL", as: String.self)
        return RevocationSet(revokedTokens: tokens, revokedDevices: Set(devices))
    }
}
