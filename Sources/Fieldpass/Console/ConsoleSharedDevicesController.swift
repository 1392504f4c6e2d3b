import FieldpassDomain
import Foundation
import Hummingbird

/// `/console/shared-devices…`: the devices a crew shares, who holds each now, their shifts,
/// and the changes an admin (or, for his teams' devices, a manager) may make: enroll one (its
/// code shown this once, with a QR code of it), end a shift, unenroll. Each goes through
/// ``DirectoryChanges`` and the store decides who may, as for the admin API.
struct ConsoleSharedDevicesController: Sendable {
    let store: any FieldpassStore
    let changes: DirectoryChanges
    let pages: ConsolePages
    let settings: SharedDeviceSettings
    let server: ServerSettings

    func addRoutes(to group: RouterGroup<ConsoleRequestContext>) {
        group.get("shared-devices", use: list)
        group.post("shared-devices", use: enroll)
        group.get("shared-devices/:device_id", use: show)
        group.get("shared-devices/:device_id/code", use: code)
        group.post("shared-devices/:device_id/end-shift", use: endShift)
        group.post("shared-devices/:device_id/unenroll", use: unenroll)
    }

    @Sendable func list(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        let caller = context.visit.identity.directoryCaller
        let teams = try await teamNames(context)
        let devices = try await store.sharedDevices(visibleTo: caller)
        let enrollable = context.visit.isAdmin ? teams : teams.filter { $0.member }
        let view = ListView(
            chrome: pages.chrome("Shared devices", context, .sharedDevices), canEnroll: context.visit.isAdmin || !enrollable.isEmpty,
            withoutTeam: context.visit.isAdmin, teams: enrollable,
            devices: devices.map { device in
                Row(
                    id: device.id, name: ConsoleText(device.name), team: Self.team(device.teamID, teams), state: Self.state(device),
                    holder: device.holder.map(Shift.init), since: ConsolePages.time(device.holder?.startedAt))
            }
        )
        return pages.renderer.page("shared-devices", view)
    }

    /// Enrolls a device, then sends the browser to the page that shows its code, and the code
    /// as a QR code, this once (post/redirect/get, ``ConsoleOnceCookie``): a reload shows the
    /// device and enrolls nothing, and the code is never stored.
    @Sendable func enroll(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        try await pages.attempt(context, back: "/shared-devices") {
            let form = context.visit.form
            let name = try DisplayName.validated(form["name"] ?? "", field: "name")
            let teamID = try form["team_id"].flatMap { $0.isEmpty ? nil : try AdminRequests.id($0, unknown: .unknownTeam) }
            let enrollment = try await changes.startSharedDeviceEnrollment(
                name: name, teamID: teamID, settings: settings, by: context.visit.identity.directoryCaller)
            let page = codePage(enrollment.device.id, context)
            // The browser follows the redirect at once; the cookie outlives neither the code nor ten minutes.
            let cookie = page.set(enrollment.code, maxAge: min(settings.enrollmentTTL, 600), server: server)
            return Response(status: .seeOther, headers: [.location: page.path, .setCookie: cookie])
        }
    }

    /// The page of a device's new code, once: with the code the enrollment's redirect sealed to
    /// this session, while it still works. Without it (shown already, or to another session)
    /// the device's own page.
    @Sendable func code(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        let caller = context.visit.identity.directoryCaller
        guard let id = try? deviceID(context), let device = try await store.sharedDevice(id: id, visibleTo: caller) else {
            return pages.notFound(context, what: "shared device", back: "/shared-devices")
        }
        let page = codePage(id, context)
        let gone = page.clear(server: server)
        guard device.state == .awaitingEnrollment, Date() < device.enrollmentExpiresAt, let code = page.secret(in: request)
        else {
            return Response(status: .seeOther, headers: [.location: pages.base + "/console/shared-devices/\(id)", .setCookie: gone])
        }
        let view = CodeView(
            chrome: pages.chrome("Enroll \(device.name)", context, .sharedDevices), deviceID: id, name: ConsoleText(device.name),
            code: code, minutes: max(1, Int(device.enrollmentExpiresAt.timeIntervalSinceNow / 60)),
            qr: try ConsoleQRCode(code, label: "The enrollment code of \(device.name) as a QR code"))
        return pages.renderer.page("shared-device-code", view, headers: [.setCookie: gone])
    }

    private func codePage(_ deviceID: String, _ context: ConsoleRequestContext) -> ConsoleOnceCookie {
        ConsoleOnceCookie(path: pages.base + "/console/shared-devices/\(deviceID)/code", session: context.visit.cookie)
    }

    @Sendable func show(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        let caller = context.visit.identity.directoryCaller
        guard let id = try? deviceID(context), let device = try await store.sharedDevice(id: id, visibleTo: caller),
            let shifts = try await store.shifts(deviceID: id, visibleTo: caller, limit: AdminSharedDevicesController.historyLength),
            let permits = try await store.offlinePermitHolders(deviceID: id, visibleTo: caller, now: Date())
        else { return pages.notFound(context, what: "shared device", back: "/shared-devices") }
        var team: Linked?
        if device.teamID != nil { team = Self.team(device.teamID, try await teamNames(context)) }
        let view = DeviceView(
            chrome: pages.chrome(device.name, context, .sharedDevices), deviceID: device.id, name: ConsoleText(device.name), team: team,
            state: Self.state(device), enrolled: ConsolePages.time(device.enrolledAt), key: device.keyThumbprint,
            holder: device.holder.map(Shift.init), canUnenroll: device.state != .unenrolled, shifts: shifts.map(Shift.init),
            permits: permits.map(Permit.init), hasPermits: !permits.isEmpty
        )
        return pages.renderer.page("shared-device", view)
    }

    @Sendable func endShift(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        let id = try deviceID(context)
        return try await pages.change(context, back: "/shared-devices/\(id)") {
            guard try await changes.endShift(deviceID: id, by: context.visit.identity.directoryCaller) != nil else {
                throw APIError(.conflict, DirectoryErrorCode.noOpenShift, "Nobody holds this device: it has no shift to end.")
            }
        }
    }

    @Sendable func unenroll(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        let id = try deviceID(context)
        return try await pages.change(context, back: "/shared-devices/\(id)") {
            try await changes.unenrollSharedDevice(id: id, by: context.visit.identity.directoryCaller)
        }
    }

    /// A shift as a page shows it, from one of the lists a person page also shows.
    struct Shift {
        let userID: String
        let email: ConsoleText
        let started: String?
        let ended: String?
        let reason: String?
        /// Started offline with a permit, and reported when the device was back.
        let offline: Bool

        init(_ shift: ShiftRecord) {
            userID = shift.userID
            email = ConsoleText(shift.email)
            started = ConsolePages.time(shift.startedAt)
            ended = ConsolePages.time(shift.endedAt)
            reason = shift.endReason.map { $0.rawValue.replacingOccurrences(of: "_", with: " ") }
            offline = shift.offlinePermitID != nil
        }
    }

    /// A person's offline permit the device holds: whose, until when, withdrawn or not. Its
    /// person's PIN is what to reset when the device is lost.
    struct Permit {
        let userID: String
        let email: ConsoleText
        let until: String?
        let withdrawn: Bool

        init(_ holder: OfflinePermitHolder) {
            userID = holder.permit.userID
            email = ConsoleText(holder.email)
            until = ConsolePages.time(holder.permit.expiresAt)
            withdrawn = holder.permit.withdrawnAt != nil
        }
    }

    /// The environment's teams, by name, and whether the signed-in person is a member.
    private func teamNames(_ context: ConsoleRequestContext) async throws -> [Team] {
        try await store.teamSummaries(environmentID: context.visit.identity.environmentID, viewer: context.visit.user.id)
            .map { Team(id: $0.id, name: $0.name, member: $0.includesViewer) }
            .sorted { $0.name.lowercased() < $1.name.lowercased() }
    }

    /// The device's team, by name with a link to its page.
    private static func team(_ id: String?, _ teams: [Team]) -> Linked? {
        id.map { id in Linked(id: id, name: ConsoleText(teams.first { $0.id == id }?.name ?? id)) }
    }

    private static func state(_ device: SharedDeviceRecord) -> String {
        device.state.rawValue.replacingOccurrences(of: "_", with: " ")
    }

    private func deviceID(_ context: ConsoleRequestContext) throws -> String {
        try AdminRequests.id(context.parameters.get("device_id") ?? "", unknown: .unknownDevice)
    }

    struct Team {
        let id: String
        let name: String
        let member: Bool
    }

    /// A team a device page names, linked to its page by id.
    struct Linked {
        let id: String
        let name: ConsoleText
    }

    struct Row {
        let id: String
        let name: ConsoleText
        let team: Linked?
        let state: String
        let holder: Shift?
        let since: String?
    }

    struct ListView {
        let chrome: ConsoleChrome
        let canEnroll: Bool
        let withoutTeam: Bool
        let teams: [Team]
        let devices: [Row]
    }

    struct CodeView {
        let chrome: ConsoleChrome
        let deviceID: String
        let name: ConsoleText
        let code: String
        let minutes: Int
        let qr: ConsoleQRCode
    }

    struct DeviceView {
        let chrome: ConsoleChrome
        let deviceID: String
        let name: ConsoleText
        let team: Linked?
        let state: String
        let enrolled: String?
        let key: String?
        let holder: Shift?
        let canUnenroll: Bool
        let shifts: [Shift]
        let permits: [Permit]
        let hasPermits: Bool
    }
}
