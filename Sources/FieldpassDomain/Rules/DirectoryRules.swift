import Foundation

/// What a change to a person does besides the change itself, for every caller and both stores.
package enum DirectoryRules {
    /// Everyone starts as a worker; an admin (or a bootstrap sign-in) gives more.
    package static let newcomerRole = Role.worker

    /// A person Fieldpass has not met: a worker with their personal realm, whose creation
    /// `actor` (their first registration unless said otherwise) is audited. The stores write
    /// it unless a person of the environment has the email already.
    package struct NewPerson: Sendable, Equatable {
        package let id: String
        package let email: String
        package let role: Role
        package let realmPath: String
        package let audit: AuditRecord
    }

    package static func newPerson(email: String, actor: String, id: String = UUID().uuidString.lowercased()) -> NewPerson {
        NewPerson(
            id: id, email: email, role: newcomerRole, realmPath: RealmPath.personal(userID: id),
            audit: .userCreated(actor: actor, userID: id, email: email))
    }

    /// How a person is looked up by email: lower-cased, as registration and SCIM store it.
    package static func emailKey(_ email: String) -> String {
        email.lowercased()
    }

    /// Giving `user` the role `role`; giving the role they have writes nothing.
    package static func setRole(_ role: Role, of user: UserRecord?, actor: String) throws -> DirectoryPlan {
        guard let user else { throw DirectoryError.unknownUser }
        guard user.role != role else { return .unchanged }
        return DirectoryPlan([
            .setRole(userID: user.id, role: role), .audit(.roleChanged(actor: actor, userID: user.id, from: user.role, to: role)),
        ])
    }

    /// Disabling or enabling `user`, whose devices not yet revoked and open shifts are `devices`. A person
    /// already so is left alone (nothing written, nothing audited). Disabling also revokes
    /// every live device, ends every console session and every shift on a shared device
    /// (`user_disabled`), so that no refresh token or console cookie outlives it; the audit entry names the devices. A person `provisionedByScim` is
    /// set active by the IdP alone: anyone may disable them, only SCIM may enable them.
    package static func setDisabled(
        _ disabled: Bool, of user: UserRecord?, provisionedByScim: Bool, devices: PersonDevices, actor: String
    ) throws -> DirectoryPlan {
        guard let user else { throw DirectoryError.unknownUser }
        if !disabled, provisionedByScim, actor != DirectoryCaller.scimActor { throw DirectoryError.activeManagedByScim }
        guard user.disabled != disabled else { return .unchanged }
        var entry = AuditRecord.disabledChanged(actor: actor, userID: user.id, disabled: disabled)
        var writes: [DirectoryWrite] = [.setDisabled(userID: user.id, disabled: disabled)]
        if disabled {
            // A shift of theirs on a shared device ends with its reason; its device is among theirs.
            writes += devices.openShifts.flatMap { ShiftRules.end($0, .userDisabled, actor: actor).writes }
            writes += devices.live.map { .revokeDevice(id: $0) }
            writes.append(.endConsoleSessions(userID: user.id))
            entry.revokedDevices = devices.live
        }
        return DirectoryPlan(writes + [.audit(entry)])
    }

    /// Revoking the device `id` of a person (`device` as read, `nil` when it is not theirs);
    /// revoking a revoked device writes nothing. An unknown person is reported before an
    /// unknown device. The device of a shift ends its `openShift`: `signed_out` when the person
    /// revokes it `byThemselves`, `ended_by_admin` otherwise.
    package static func revokeDevice(
        id: String, _ device: (name: String, revoked: Bool)?, openShift: ShiftRecord?, userKnown: Bool, userID: String,
        byThemselves: Bool, actor: String
    ) throws -> DirectoryPlan {
        guard userKnown else { throw DirectoryError.unknownUser }
        guard let device else { throw DirectoryError.unknownDevice }
        guard !device.revoked else { return .unchanged }
        return DirectoryPlan(
            ShiftRules.end(openShift, byThemselves ? .signedOut : .endedByAdmin, actor: actor).writes + [
                .revokeDevice(id: id), .audit(.deviceRevoked(actor: actor, userID: userID, deviceID: id, name: device.name)),
            ])
    }

    /// Unbinding `user` from their IdP account, so that their next sign-in binds one anew; a
    /// person not bound is left alone. A reset revokes every live device and ends unfinished
    /// sign-ins (``SessionRules/expiry``): what was obtained through the replaced account
    /// stops working with it, and a sign-in under way would only hand a revoked device its
    /// tokens. A shift of theirs on a shared device ends (`ended_by_admin`).
    package static func resetIdentity(of user: UserRecord?, devices: PersonDevices, actor: String) throws -> DirectoryPlan {
        guard let user else { throw DirectoryError.unknownUser }
        guard let subject = user.idpSubject else { return .unchanged }
        return DirectoryPlan(
            [.clearIdentity(userID: user.id)] + devices.openShifts.flatMap { ShiftRules.end($0, .endedByAdmin, actor: actor).writes }
                + devices.live.map { .revokeDevice(id: $0) } + [
                    .expireSignIns(userID: user.id),
                    .audit(.identityReset(actor: actor, userID: user.id, issuer: user.idpIssuer, subject: subject, revoked: devices.live)),
                ])
    }
}
