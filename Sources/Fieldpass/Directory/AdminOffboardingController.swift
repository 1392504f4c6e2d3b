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

    func addRoutes(to routes: DirectoryRoutes) {
        routes.on(.get, "users/:user_id/devices", .read, use: devices)
        routes.on(.delete, "users/:user_id/devices/:device_id", .administer, use: revokeDevice)
        routes.on(.post, "users/:user_id/disable", .administer, use: disable)
        routes.on(.post, "users/:user_id/enable", .administer, use: enable)
        routes.on(.delete, "users/:user_id/identity", .administer, use: resetIdentity)
    }

    @Sendable func devices(_ request: Request, context: IdentifiedRequestContext) async throws -> DeviceList {
        let records = try await credentials.devices(userID: try userID(context), environmentID: context.identity.environmentID)
        return DeviceList(records, currentDeviceID: nil)
    }

    @Sendable func revokeDevice(_ request: Request, context: IdentifiedRequestContext) async throws -> HTTPResponse.Status {
        let deviceID = try AdminRequests.id(context.parameters.get("device_id") ?? "", unknown: .unknownDevice)
        try await changes.revokeDevice(id: deviceID, userID: try userID(context), by: context.identity.directoryCaller)
        return .noContent
    }

    /// Offboards a person at once: every device revoked, no sign-in, refresh or API call.
    @Sendable func disable(_ request: Request, context: IdentifiedRequestContext) async throws -> UserRecord {
        return try await changes.setDisabled(true, userID: try userID(context), by: context.identity.directoryCaller)
    }

    /// Lets a person onboard again; their old devices stay revoked.
    @Sendable func enable(_ request: Request, context: IdentifiedRequestContext) async throws -> UserRecord {
        return try await changes.setDisabled(false, userID: try userID(context), by: context.identity.directoryCaller)
    }

    /// Unbinds the IdP identity, e.g. after the IdP account was recreated: the next sign-in binds anew.
    @Sendable func resetIdentity(_ request: Request, context: IdentifiedRequestContext) async throws -> HTTPResponse.Status {
        try await changes.resetIdentity(userID: try userID(context), by: context.identity.directoryCaller)
        return .noContent
    }

    private func userID(_ context: IdentifiedRequestContext) throws -> String {
        try AdminRequests.id(context.parameters.get("user_id") ?? "", unknown: .unknownUser)
    }
}
