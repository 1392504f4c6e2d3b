/// What the backend is told of an audited change: every directory change is audited through
/// one function per store, which also stores the events this returns, in the same
/// transaction. So each way of changing the directory (admin API, CLI, the IdP's claims at
/// sign-in, SCIM) produces its events without code of its own, and a change that rolls back
/// leaves none.
package enum LifecycleEventRules {
    /// How long the feed keeps an event: a backend that stops reading for longer must start
    /// again from the realm feed and the admin API.
    package static let retention: Double = 30 * 24 * 3600

    /// The events of `entry`, in the order the feed lists them; none for entries the backend
    /// has no use for (failed sign-ins, identity conflicts, realm grants).
    package static func events(for entry: AuditRecord) -> [LifecycleEvent] {
        let userID = subjectID(entry.target, kind: "user")
        let teamID = subjectID(entry.target, kind: "team")
        let (actor, actorID) = actorKind(entry.actor, subjectUser: userID)
        func event(_ type: LifecycleEventType) -> LifecycleEvent { LifecycleEvent(type: type, actor: actor, actorID: actorID) }
        func revocations(reason: String) -> [LifecycleEvent] {
            entry.revokedDevices.map { deviceID in
                var revoked = event(.deviceRevoked)
                revoked.user = userID.map { .init(id: $0) }
                revoked.device = .init(id: deviceID)
                revoked.reason = reason
                return revoked
            }
        }
        switch entry.action {
        case "user.create", "user.delete":
            var changed = event(entry.action == "user.create" ? .userCreated : .userDeleted)
            changed.user = userID.map { .init(id: $0, email: (entry.after ?? entry.before)?["email"]) }
            changed.before = entry.before
            changed.after = entry.after
            return [changed] + revocations(reason: "user_deleted")
        case "user.role", "user.update":
            var changed = event(.userUpdated)
            changed.user = userID.map { .init(id: $0) }
            changed.before = entry.before
            changed.after = entry.after
            return [changed]
        case "user.disable", "user.enable":
            var changed = event(entry.action == "user.disable" ? .userDisabled : .userEnabled)
            changed.user = userID.map { .init(id: $0) }
            changed.before = entry.before
            changed.after = entry.after
            return [changed] + revocations(reason: "user_disabled")
        case "identity.reset":
            return revocations(reason: "identity_reset")
        case "device.revoke":
            guard let deviceID = entry.after?["device_id"] else { return [] }
            var revoked = event(.deviceRevoked)
            revoked.user = userID.map { .init(id: $0) }
            revoked.device = .init(id: deviceID, name: entry.after?["name"])
            revoked.reason = entry.after?["reason"] ?? "revoked"
            return [revoked]
        case "team.add_member", "team.remove_member":
            guard let teamID, let member = entry.after?["user"] else { return [] }
            let joined = entry.action == "team.add_member"
            let (memberActor, memberActorID) = actorKind(entry.actor, subjectUser: member)
            var changed = LifecycleEvent(type: .userUpdated, actor: memberActor, actorID: memberActorID)
            changed.user = .init(id: member)
            changed.team = .init(id: teamID)
            changed.before = ["team_member": "\(!joined)"]
            changed.after = ["team_member": "\(joined)"]
            return [changed]
        case "team.create", "team.rename", "team.delete":
            guard let teamID else { return [] }
            let type: LifecycleEventType =
                switch entry.action {
                case "team.create": .teamCreated
                case "team.rename": .teamRenamed
                default: .teamDeleted
                }
            var changed = event(type)
            changed.team = .init(id: teamID, name: (entry.after ?? entry.before)?["name"])
            changed.before = entry.before
            changed.after = entry.after
            return [changed]
        case "badge.lock":
            var locked = event(.badgeLocked)
            locked.user = userID.map { .init(id: $0) }
            locked.device = entry.after?["shared_device_id"].map { .init(id: $0) }
            return [locked]
        case "shift.start", "shift.end":
            guard let deviceID = subjectID(entry.target, kind: "shared_device"), let after = entry.after, let member = after["user"]
            else { return [] }
            let (shiftActor, shiftActorID) = actorKind(entry.actor, subjectUser: member)
            var shift = LifecycleEvent(
                type: entry.action == "shift.start" ? .shiftStarted : .shiftEnded, actor: shiftActor, actorID: shiftActorID)
            shift.user = .init(id: member, email: after["email"])
            shift.device = .init(id: deviceID)
            shift.reason = after["reason"]
            shift.after = after["shift_id"].map { ["shift_id": $0] }
            // A shift that ran offline is told with its own times, once the device reported it.
            for key in ["offline_permit", "started_at", "ended_at"] { shift.after?[key] = after[key] }
            return [shift]
        default:
            return []
        }
    }

    /// `user:ID` → `ID` for `kind` "user".
    private static func subjectID(_ target: String, kind: String) -> String? {
        let prefix = kind + ":"
        return target.hasPrefix(prefix) ? String(target.dropFirst(prefix.count)) : nil
    }

    /// The audit log's actor as the feed names it: a person acting on someone else can only
    /// be an admin (only admins change the directory); on themselves, `user`. Whether they
    /// used a bearer token or the console (`console:<id>` in the audit log) is the audit
    /// log's detail: the feed names the person the same way.
    static func actorKind(_ actor: String, subjectUser: String?) -> (kind: String, id: String?) {
        if let id = subjectID(actor, kind: "user") ?? subjectID(actor, kind: "console") {
            return (id == subjectUser ? "user" : "admin", id)
        }
        if let id = subjectID(actor, kind: "service") { return ("service", id) }
        return (actor, nil)
    }
}
