/// What provisioning, changing or removing a person through SCIM writes, decided once for both
/// stores: their SCIM attributes, their email, whether SCIM lists them, their disabling (by
/// ``DirectoryRules/setDisabled(_:of:provisionedByScim:devices:actor:)``, as for every
/// caller), and the audit entries, in order.
package enum ScimUserPlans {
    /// Provisioning `user`, found by email or `created` for it just now: a person SCIM lists
    /// already is a conflict; one it removed comes back, disabled until the IdP says active.
    package static func provision(
        _ user: UserRecord, created: Bool, listed: Bool, profile: ScimProfile, active: Bool, devices: PersonDevices, actor: String
    ) throws -> DirectoryPlan {
        guard !listed else { throw ScimError.uniqueness("A user with this userName exists already.") }
        var plan = DirectoryPlan([.saveScimProfile(userID: user.id, profile: profile)])
        if let entry = AuditRecord.scimUserProvisioned(
            actor: actor, userID: user.id, email: user.email, profile: profile, newcomer: created)
        {
            plan.writes.append(.audit(entry))
        }
        plan.writes += try DirectoryRules.setDisabled(!active, of: user, provisionedByScim: true, devices: devices, actor: actor)
            .writes
        return plan
    }

    /// Replacing a listed person's email and attributes, audited only when something changed;
    /// an email another person has (`holderOfEmail`, the person of the environment with it, if
    /// any) is a conflict. `active`, when given, enables or disables them.
    package static func update(
        _ old: ScimUserRecord, email: String, holderOfEmail: String?, profile: ScimProfile, active: Bool?, devices: PersonDevices,
        actor: String
    ) throws -> DirectoryPlan {
        let emailTaken = holderOfEmail.map { $0 != old.user.id } ?? false
        var plan = DirectoryPlan()
        let userID = old.user.id
        if let entry = AuditRecord.scimUserUpdated(actor: actor, userID: userID, from: (old.user.email, old.profile), to: (email, profile))
        {
            if email != old.user.email {
                guard !emailTaken else { throw ScimError.uniqueness("Another user has this userName.") }
                plan.writes.append(.setEmail(userID: userID, email: email))
            }
            plan.writes += [.saveScimProfile(userID: userID, profile: profile), .audit(entry)]
        }
        if let active {
            plan.writes += try DirectoryRules.setDisabled(
                !active, of: old.user, provisionedByScim: true, devices: devices, actor: actor
            )
            .writes
        }
        return plan
    }

    /// Taking a listed person out of SCIM (later reads answer 404) and disabling them.
    package static func remove(_ old: ScimUserRecord, devices: PersonDevices, actor: String) throws -> DirectoryPlan {
        let userID = old.user.id
        var plan = DirectoryPlan([
            .saveScimProfile(userID: userID, profile: old.profile), .markScimRemoved(userID: userID),
            .audit(.userDeleted(actor: actor, userID: userID, email: old.user.email)),
        ])
        plan.writes += try DirectoryRules.setDisabled(true, of: old.user, provisionedByScim: true, devices: devices, actor: actor)
            .writes
        return plan
    }
}
