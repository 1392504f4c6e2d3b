public import FieldpassDomain
import Foundation
import PostgresNIO

/// SCIM's people and groups on PostgreSQL are the operations written once (``TransactionalStore``).
extension PostgresStore: ScimStore {
    /// Whether SCIM provisioned the person (``ScimStatements/provisioned``).
    static func isProvisioned(_ connection: PostgresConnection, userID: String, environmentID: String) async throws -> Bool {
        try await connection.value(PostgresQuery(ScimStatements.provisioned, userID, environmentID), as: Bool.self) ?? false
    }

    static func saveProfile(_ connection: PostgresConnection, userID: String, profile: ScimProfile, now: Date) async throws {
        try await connection.execute(
            PostgresQuery(
                ScimStatements.saveProfile, userID, profile.externalID, profile.displayName, try ScimColumns.name(profile),
                try ScimColumns.emails(profile), now.timeIntervalSince1970))
    }
}
