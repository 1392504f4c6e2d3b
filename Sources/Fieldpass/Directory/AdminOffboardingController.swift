import FieldpassDomain
import Foundation
import Hummingbird

/// `/admin/users/{id}/devices|disable|enable|identity`: taking access back.
///
/// Admins and managers may list devices; only admins revoke, disable, enable or reset an
/// identity. Everything is scoped to the caller's environment and audited.
struct AdminOffboardingController: Sendable {
    let credentials: any CredentialStore
    let changes: DirectoryChanges

    func addRoutes(to group: RouterGroup<IdentifiedRequestContext>) {
        group.get("users/:user_id/devices", use: devices)
        group.delete("users/:user_id/devices/:device_id", use: revokeDevice)
        group.post("users/:user_id/disable", use: disable)
        group.post("users/:user_id/enable", use: enable)
        group.delete("users/:user_id/identity", use: resetIdentity)
    }

    @Sendable func devices(_ request: Request, context: IdentifiedRequestContext) async throws -> DeviceList {
        try context.identity.requireStaff()
        let records = try await credentials.devices(userID: try userID(context), environmentID: context.identity.environmentID)
        return DeviceList(records, currentDeviceID: nil)
    }

    @Sendable func revokeDevice(_ request: Request, context: IdentifiedRequestContext) async throws -> HTTPResponse.Status {
        try context.identity.requireAdmin()
        let deviceID = try AdminRequests.id(context.parameters.get("device_id") ?? "", unknown: .unknownDevice)
        try await changes.revokeDevice(id: deviceID, userID: try userID(context), by: context.identity)
        return .noContent
    }

    /// Offboards a person at once: every device revoked, no sign-in, refresh or API call.
    @Sendable func disable(_ request: Request, context: IdentifiedRequestContext) async throws -> UserRecord {
        try context.identity.requireAdmin()
        return try await changes.setDisabled(true, userID: try userID(context), by: context.identity)
    }

    /// Lets a person onboard again; their old devices stay revoked.
    @Sendable func enable(_ request: Request, context: IdentifiedRequestContext) async throws -> UserRecord {
        try context.identity.requireAdmin()
        return try await changes.setDisabled(false, userID: try userID(context), by: context.identity)
    }

    /// Unbinds the IdP identity, e.g. after the IdP account was recreated: the next sign-in binds anew.
    @Sendable func resetIdentity(_ request: Request, context: IdentifiedRequestContext) async throws -> HTTPResponse.Status {
        try context.identity.requireAdmin()
        try await changes.resetIdentity(userID: try userID(context), by: context.identity)
        return .noContent
    }

    private func userID(_ context: IdentifiedRequestContext) throws -> String {
        try AdminRequests.id(context.parameters.get("user_id") ?? "", unknown: .unknownUser)
    }
}
