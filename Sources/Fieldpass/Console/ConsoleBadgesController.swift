import FieldpassDomain
import Foundation
import Hummingbird

/// `/console/people/{id}/badge…`: a person's badge for shared devices, from their page. Issuing
/// (or issuing anew, which is how a lost card is reprinted: the old one stops working) shows
/// the printable card, its QR code and the temporary PIN this once; a PIN reset shows the new
/// temporary PIN once. Admins may do it for anyone; managers revoke the badges of their teams'
/// workers, and issue and reset them where the environment lets them; the store decides
/// (``BadgeRules``).
struct ConsoleBadgesController: Sendable {
    let store: any FieldpassStore
    let changes: DirectoryChanges
    let pages: ConsolePages
    let settings: BadgeSettings
    let hasher: PinHasher

    func addRoutes(to group: RouterGroup<ConsoleRequestContext>) {
        group.post("people/:user_id/badge", use: issue)
        group.post("people/:user_id/badge/pin", use: resetPin)
        group.post("people/:user_id/badge/revoke", use: revoke)
    }

    @Sendable func issue(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        let userID = try userID(context)
        return try await pages.attempt(context, back: "/people/\(userID)") {
            let issued = try await changes.issueBadge(
                userID: userID, settings: settings, hasher: hasher, by: context.visit.identity.directoryCaller)
            let email = try await store.user(id: userID, environmentID: context.visit.identity.environmentID)?.email ?? ""
            let view = CardView(
                chrome: pages.chrome("Badge of \(email)", context, .people), personID: userID, email: email,
                expires: ConsolePages.time(issued.badge.expiresAt) ?? "", pin: issued.temporaryPin,
                qr: try ConsoleQRCode(issued.value, label: "The badge of \(email) as a QR code"))
            return pages.renderer.page("badge-card", view, headers: [.cacheControl: "no-store"])
        }
    }

    @Sendable func resetPin(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        let userID = try userID(context)
        return try await pages.attempt(context, back: "/people/\(userID)") {
            let pin = try await changes.resetBadgePin(
                userID: userID, settings: settings, hasher: hasher, by: context.visit.identity.directoryCaller)
            return pages.renderer.message(
                status: .ok, title: "New temporary PIN",
                text: "The badge's new temporary PIN is \(pin). It is shown this once; at the first sign-in the worker chooses their own.",
                back: pages.base + "/console/people/\(userID)", chrome: pages.chrome("New temporary PIN", context, .people))
        }
    }

    @Sendable func revoke(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        let userID = try userID(context)
        return try await pages.change(context, back: "/people/\(userID)") {
            try await changes.revokeBadge(userID: userID, by: context.visit.identity.directoryCaller)
        }
    }

    private func userID(_ context: ConsoleRequestContext) throws -> String {
        try AdminRequests.id(context.parameters.get("user_id") ?? "", unknown: .unknownUser)
    }

    struct CardView {
        let chrome: ConsoleChrome
        let personID: String
        let email: String
        let expires: String
        let pin: String
        let qr: ConsoleQRCode
    }
}
