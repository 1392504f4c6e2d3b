import Foundation

/// The audit entries of SCIM provisioning that the directory's own entries do not cover:
/// a person's SCIM attributes, their removal from SCIM, and role groups. Roles, disabling,
/// teams and memberships are audited by the directory's entries with the actor `scim`.
extension AuditRecord {
    /// What a SCIM POST adds to the log. A newcomer's creation is audited where every person
    /// is created (``userCreated(actor:userID:email:)``), so only their attributes follow, if
    /// any; a person SCIM had deleted is taken back, created again with them.
    package static func scimUserProvisioned(
        actor: String, userID: String, email: String, profile: ScimProfile, newcomer: Bool
    ) -> AuditRecord? {
        guard !newcomer else {
            return scimUserUpdated(actor: actor, userID: userID, from: (email, ScimProfile()), to: (email, profile))
        }
        var takenBack = userCreated(actor: actor, userID: userID, email: email)
        takenBack.after = (takenBack.after ?? [:]).merging(state(profile)) { $1 }
        return takenBack
    }

    /// What SCIM changed of a person's email and attributes, or `nil` when nothing changed.
    package static func scimUserUpdated(
        actor: String, userID: String, from old: (email: String, profile: ScimProfile), to new: (email: String, profile: ScimProfile)
    ) -> AuditRecord? {
        let before = ["email": old.email].merging(state(old.profile)) { $1 }
        let after = ["email": new.email].merging(state(new.profile)) { $1 }
        let changed = Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }
        guard !changed.isEmpty else { return nil }
        return AuditRecord(
            actor: actor, action: "user.update", target: userTarget(userID),
            before: before.filter { changed.contains($0.key) }, after: after.filter { changed.contains($0.key) }
        )
    }

    package static func roleGroupCreated(actor: String, groupID: String, name: String) -> AuditRecord {
        AuditRecord(actor: actor, action: "role_group.create", target: "role_group:\(groupID)", after: ["name": name])
    }

    package static func roleGroupDeleted(actor: String, groupID: String, name: String) -> AuditRecord {
        AuditRecord(actor: actor, action: "role_group.delete", target: "role_group:\(groupID)", before: ["name": name])
    }

    package static func roleGroupMembership(actor: String, groupID: String, userID: String, member: Bool) -> AuditRecord {
        AuditRecord(
            actor: actor, action: member ? "role_group.add_member" : "role_group.remove_member", target: "role_group:\(groupID)",
            before: ["member": member ? "no" : "yes", "user": userID], after: ["member": member ? "yes" : "no", "user": userID]
        )
    }

    /// A profile as audit state: only what is set.
    private static func state(_ profile: ScimProfile) -> [String: String] {
        var state: [String: String] = [:]
        state["external_id"] = profile.externalID
        state["display_name"] = profile.displayName
        if !profile.name.isEmpty {
            state["name"] = profile.name.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ";")
        }
        if !profile.emails.isEmpty { state["emails"] = profile.emails.map(\.value).joined(separator: ",") }
        return state
    }
}
