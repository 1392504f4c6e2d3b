import FieldpassDomain
import Foundation
import Hummingbird

/// `/admin/users/{user_id}/badge…`: a person's badge for signing in on shared devices. Admins
/// look after everyone's; managers revoke those of their teams' workers, and issue them and
/// reset their PINs only where the environment lets them (``BadgeRules``), which the store
/// decides inside each change. The badge and its temporary PIN are shown once.
struct AdminBadgesController: Sendable {
    let changes: DirectoryChanges
    let settings: BadgeSettings
    let hasher: PinHasher

    struct Issued: ResponseEncodable {
        var badgeID: String
        var badge: String
        var temporaryPin: String
        var expiresAt: Date

        enum CodingKeys: String, CodingKey {
            case badge
            case badgeID = "badge_id"
            case temporaryPin = "temporary_pin"
            case expiresAt = "expires_at"
        }
    }

    struct PinReset: ResponseEncodable {
        var temporaryPin: String

        enum CodingKeys: String, CodingKey {
            case temporaryPin = "temporary_pin"
        }
    }

    func addRoutes(to routes: DirectoryRoutes) {
        routes.on(.post, "users/:user_id/badge", .read, use: issue)
        routes.on(.delete, "users/:user_id/badge", .read, use: revoke)
        routes.on(.post, "users/:user_id/badge/pin", .read, use: resetPin)
    }

    @Sendable func issue(_ request: Request, context: IdentifiedRequestContext) async throws -> EditedResponse<Issued> {
        let issued = try await changes.issueBadge(
            userID: try userID(context), settings: settings, hasher: hasher, by: context.identity.directoryCaller)
        return EditedResponse(
            status: .created, headers: [.cacheControl: "no-store"],
            response: Issued(
                badgeID: issued.badge.id, badge: issued.value, temporaryPin: issued.temporaryPin, expiresAt: issued.badge.expiresAt))
    }

    @Sendable func revoke(_ request: Request, context: IdentifiedRequestContext) async throws -> Response {
        try await changes.revokeBadge(userID: try userID(context), by: context.identity.directoryCaller)
        return Response(status: .noContent)
    }

    @Sendable func resetPin(_ request: Request, context: IdentifiedRequestContext) async throws -> EditedResponse<PinReset> {
        let pin = try await changes.resetBadgePin(
            userID: try userID(context), settings: settings, hasher: hasher, by: context.identity.directoryCaller)
        return EditedResponse(headers: [.cacheControl: "no-store"], response: PinReset(temporaryPin: pin))
    }

    private func userID(_ context: IdentifiedRequestContext) throws -> String {
        try AdminRequests.id(context.parameters.get("user_id") ?? "", unknown: .unknownUser)
    }
}
