import FieldpassDomain
import Foundation

// The console's records read from rows, decoded once for both stores (``StoredRow``).

extension ConsoleSignIn {
    init(row: some StoredRow) throws {
        self.init(
            stateHash: try row.column("state_hash"), environmentID: try row.column("environment_id"), email: try row.column("email"),
            nonce: try row.column("nonce"), codeVerifier: try row.column("code_verifier"),
            browserBinding: try row.column("browser_binding"),
            expiresAt: Date(timeIntervalSince1970: try row.column("expires_at")))
    }
}

extension ConsoleSession {
    /// The session of a row of ``ConsoleStatements/sessionWithPerson``.
    init(sessionRow row: some StoredRow) throws {
        self.init(
            idHash: try row.column("id_hash"), userID: try row.column("user_id"), environmentID: try row.column("session_environment_id"),
            createdAt: Date(timeIntervalSince1970: try row.column("session_created_at")),
            expiresAt: Date(timeIntervalSince1970: try row.column("expires_at")),
            idleExpiresAt: Date(timeIntervalSince1970: try row.column("idle_expires_at")))
    }
}

extension UserRecord {
    /// The person a row joined, if there was one to join.
    init?(joinedRow row: some StoredRow) throws {
        guard try row.column("id", as: String?.self) != nil else { return nil }
        try self.init(row: row)
    }
}

extension PersonSummary {
    /// A row of ``ConsoleStatements/peoplePage(_:environmentID:)`` or ``ConsoleStatements/waitingForData``.
    init(row: some StoredRow) throws {
        self.init(
            user: try UserRecord(row: row), displayName: try row.column("scim_display_name"),
            signedInAt: try row.column("signed_in_at", as: Double?.self).map(Date.init(timeIntervalSince1970:)),
            lastSeenAt: try row.column("last_seen_at", as: Double?.self).map(Date.init(timeIntervalSince1970:)))
    }
}

extension TeamSummary {
    /// A row of ``TeamStatements/summaries``.
    init(row: some StoredRow) throws {
        self.init(
            id: try row.column("id"), name: try row.column("name"), memberCount: Int(try row.column("member_count", as: Int64.self)),
            includesViewer: try row.column("includes_viewer"))
    }
}

extension AuditEntry {
    /// An entry as stored, `before` and `after` as JSON objects.
    init(row: some StoredRow) throws {
        func state(_ column: String) throws -> [String: String]? {
            try row.column(column, as: String?.self).map { try JSONDecoder().decode([String: String].self, from: Data($0.utf8)) }
        }
        self.init(
            id: try row.column("id"), actor: try row.column("actor"), action: try row.column("action"), target: try row.column("target"),
            before: try state("before"), after: try state("after"), at: Date(timeIntervalSince1970: try row.column("at")))
    }
}

extension NamedAuditEntry {
    /// A row of ``ConsoleStatements/auditPage(environmentID:filter:before:limit:)``: the entry
    /// and the names read with it.
    init(row: some StoredRow) throws {
        var fieldNames: [String: String] = [:]
        for field in Self.namedFields.keys {
            fieldNames[field] = try row.column(AuditNameColumns.column(field), as: String?.self)
        }
        self.init(
            entry: try AuditEntry(row: row), actorName: try row.column("actor_name"), targetName: try row.column("target_name"),
            fieldNames: fieldNames)
    }
}
