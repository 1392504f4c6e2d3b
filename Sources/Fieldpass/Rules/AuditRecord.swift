/// An audit entry a rule decided on, for the store to write in the same transaction.
struct AuditRecord: Sendable, Equatable {
    var actor: String
    var action: String
    var target: String
    var before: [String: String]?
    var after: [String: String]?
}
