public import FieldpassDomain
import Foundation
import GRDB

/// SCIM's people and groups on SQLite are the operations written once (``TransactionalStore``).
extension SQLiteStore: ScimStore {
    /// Whether SCIM provisioned the person (``ScimStatements/provisioned``).
    static func isProvisioned(_ db: Database, userID: String, environmentID: String) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: ScimStatements.provisioned.sqlite), arguments: [userID, environmentID]) ?? false
    }

    static func saveProfile(_ db: Database, userID: String, profile: ScimProfile, now: Date) throws {
        try db.execute(
            cached: ScimStatements.saveProfile.sqlite,
            arguments: [
                userID, profile.externalID, profile.displayName, try ScimColumns.name(profile), try ScimColumns.emails(profile),
                now.timeIntervalSince1970,
            ]
        )
    }
}
