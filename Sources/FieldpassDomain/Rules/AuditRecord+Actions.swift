/// Every audit entry Fieldpass writes, by what happened: the action names and the shape of
/// `before` and `after` live here once, and both stores write what these return.
extension AuditRecord {
    /// How an entry names the person it is about.
    package static func userTarget(_ userID: String) -> String { "user:\(userID)" }

    /// A person and their realm were created: by their first registration (`device`), or
    /// ahead of it (`cli`, `scim`).
    package static func userCreated(actor: String, userID: String, email: String) -> AuditRecord {
        AuditRecord(actor: actor, action: "user.create", target: userTarget(userID), after: ["email": email])
    }

    /// A person was removed from the directory; their realm is left for the backend.
    package static func userDeleted(actor: String, userID: String, email: String, revokedDevices: [String] = []) -> AuditRecord {
        AuditRecord(
            actor: actor, action: "user.delete", target: userTarget(userID), before: ["email": email], revokedDevices: revokedDevices)
    }

    package static func teamCreated(actor: String, teamID: String, name: String) -> AuditRecord {
        AuditRecord(actor: actor, action: "team.create", target: "team:\(teamID)", after: ["name": name])
    }

    package static func teamRenamed(actor: String, teamID: String, from old: String, to new: String) -> AuditRecord {
        AuditRecord(actor: actor, action: "team.rename", target: "team:\(teamID)", before: ["name": old], after: ["name": new])
    }

    package static func teamDeleted(actor: String, team: TeamRecord) -> AuditRecord {
        AuditRecord(
            actor: actor, action: "team.delete", target: "team:\(team.id)",
            before: ["name": team.name, "members": team.members.joined(separator: ",")]
        )
    }

    package static func teamMembership(actor: String, teamID: String, userID: String, member: Bool) -> AuditRecord {
        AuditRecord(
            actor: actor, action: member ? "team.add_member" : "team.remove_member", target: "team:\(teamID)",
            before: ["member": member ? "no" : "yes", "user": userID], after: ["member": member ? "yes" : "no", "user": userID]
        )
    }

    /// A grant set (`access` given) or revoked (`nil`).
    package static func grant(
        actor: String, userID: String, realmPath: String, from previous: RealmAccess?, to access: RealmAccess?
    ) -> AuditRecord {
        AuditRecord(
            actor: actor, action: access == nil ? "grant.revoke" : "grant.set", target: userTarget(userID),
            before: previous.map { ["realm_path": realmPath, "access": $0.rawValue] },
            after: access.map { ["realm_path": realmPath, "access": $0.rawValue] }
        )
    }

    package static func roleChanged(actor: String, userID: String, from old: Role, to new: Role) -> AuditRecord {
        AuditRecord(
            actor: actor, action: "user.role", target: userTarget(userID), before: ["role": old.rawValue], after: ["role": new.rawValue])
    }

    package static func disabledChanged(actor: String, userID: String, disabled: Bool) -> AuditRecord {
        AuditRecord(
            actor: actor, action: disabled ? "user.disable" : "user.enable", target: userTarget(userID),
            before: ["disabled": "\(!disabled)"], after: ["disabled": "\(disabled)"]
        )
    }

    package static func identityReset(actor: String, userID: String, issuer: String?, subject: String, revoked: [String]) -> AuditRecord {
        AuditRecord(
            actor: actor, action: "identity.reset", target: userTarget(userID),
            before: ["issuer": issuer ?? "", "subject": subject], after: ["devices_revoked": "\(revoked.count)"],
            revokedDevices: revoked
        )
    }

    /// An admin (or the CLI) took one device's access back.
    package static func deviceRevoked(actor: String, userID: String, deviceID: String, name: String) -> AuditRecord {
        AuditRecord(actor: actor, action: "device.revoke", target: userTarget(userID), after: ["device_id": deviceID, "name": name])
    }

    /// The device revoked its own refresh token (RFC 7009), which signs the device out.
    package static func deviceRevokedByItsToken(_ grant: RefreshGrant) -> AuditRecord {
        AuditRecord(
            actor: "user:\(grant.userID)", action: "device.revoke", target: userTarget(grant.userID),
            after: ["device_id": grant.deviceID, "reason": "token_revocation"]
        )
    }

    /// A rotated refresh token came back after its grace: someone holds a copy.
    package static func deviceRevokedOnReuse(_ grant: RefreshGrant) -> AuditRecord {
        AuditRecord(
            actor: "fieldpass", action: "device.revoke", target: userTarget(grant.userID),
            after: ["device_id": grant.deviceID, "reason": "refresh_token_reuse"]
        )
    }

    /// A sign-in ended at the callback with `error`, which the log shows as `login.<error>`.
    package static func loginFailed(error: String, userID: String, deviceID: String) -> AuditRecord {
        AuditRecord(actor: "browser", action: "login.\(error)", target: userTarget(userID), after: ["device_id": deviceID])
    }
}
