/// What an admin's changes to a person do besides the change itself.
package enum DirectoryRules {
    /// Everyone starts as a worker; an admin (or a bootstrap sign-in) gives more.
    package static let newcomerRole = Role.worker

    /// Disabling or enabling `user`: the entry to write, or `nil` when the person is so
    /// already (nothing changes, nothing is audited). Disabling also revokes every live
    /// device and ends every console session, so no refresh token or console cookie outlives
    /// it (``revokesDevices(disabling:)``).
    package static func setDisabled(_ disabled: Bool, user: UserRecord, actor: String) -> AuditRecord? {
        user.disabled == disabled ? nil : .disabledChanged(actor: actor, userID: user.id, disabled: disabled)
    }

    /// Whether setting `disabled` revokes the person's devices and console sessions.
    package static func revokesDevices(disabling disabled: Bool) -> Bool {
        disabled
    }

    /// Whether an identity reset changes anything: only a bound person's. A reset revokes every
    /// live device and ends unfinished sign-ins (``SessionRules/expiry``): what was obtained
    /// through the replaced account stops working with it, and a sign-in under way would only
    /// hand a revoked device its tokens.
    package static func resetsIdentity(_ user: UserRecord) -> Bool {
        user.idpSubject != nil
    }
}
