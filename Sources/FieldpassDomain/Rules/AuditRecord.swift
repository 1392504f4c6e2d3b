/// An audit entry a rule decided on, for the store to write in the same transaction.
package struct AuditRecord: Sendable, Equatable {
    package var actor: String
    package var action: String
    package var target: String
    package var before: [String: String]?
    package var after: [String: String]?
    /// The devices the change revoked along with it (disabling, an identity reset), which the
    /// audit log counts and the lifecycle events name one by one (``LifecycleEventRules``).
    package var revokedDevices: [String]

    package init(
        actor: String, action: String, target: String, before: [String: String]? = nil, after: [String: String]? = nil,
        revokedDevices: [String] = []
    ) {
        self.actor = actor
        self.action = action
        self.target = target
        self.before = before
        self.after = after
        self.revokedDevices = revokedDevices
    }
}
