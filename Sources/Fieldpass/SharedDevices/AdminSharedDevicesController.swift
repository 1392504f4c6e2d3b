import FieldpassDomain
import Foundation
import Hummingbird

/// `/admin/shared_devices…`: devices a crew shares. Admins look after every one, managers those
/// of their teams (``SharedDeviceRules``), which the store decides inside each change.
struct AdminSharedDevicesController: Sendable {
    let store: any SharedDeviceStore
    let changes: DirectoryChanges
    let settings: SharedDeviceSettings

    struct NewDevice: Decodable {
        var name: String
        var teamID: String?

        enum CodingKeys: String, CodingKey {
            case name
            case teamID = "team_id"
        }
    }

    func addRoutes(to routes: DirectoryRoutes) {
        routes.on(.post, "shared_devices", .read, use: create)
        routes.on(.get, "shared_devices", .read, use: list)
        routes.on(.get, "shared_devices/:device_id", .read, use: show)
        routes.on(.delete, "shared_devices/:device_id", .read, use: unenroll)
        routes.on(.post, "shared_devices/:device_id/shift/end", .read, use: endShift)
    }

    /// Shifts a device's page lists, latest first.
    static let historyLength = 100

    @Sendable func create(
        _ request: Request, context: IdentifiedRequestContext
    ) async throws -> EditedResponse<SharedDeviceResponse.Created> {
        let body = try await JSONBody.decode(NewDevice.self, from: request, context: context)
        let name = try DisplayName.validated(body.name, field: "name")
        let teamID = try body.teamID.map { try AdminRequests.id($0, unknown: .unknownTeam) }
        let enrollment = try await changes.startSharedDeviceEnrollment(
            name: name, teamID: teamID, settings: settings, by: context.identity.directoryCaller)
        let device = enrollment.device
        return EditedResponse(
            status: .created,
            response: SharedDeviceResponse.Created(
                deviceID: device.id, name: device.name, teamID: device.teamID, enrollmentCode: enrollment.code,
                enrollmentExpiresAt: device.enrollmentExpiresAt))
    }

    @Sendable func list(_ request: Request, context: IdentifiedRequestContext) async throws -> SharedDeviceResponse.List {
        SharedDeviceResponse.List(
            sharedDevices: try await store.sharedDevices(visibleTo: context.identity.directoryCaller).map(SharedDeviceResponse.init))
    }

    @Sendable func show(_ request: Request, context: IdentifiedRequestContext) async throws -> SharedDeviceResponse {
        let (id, caller) = (try deviceID(context), context.identity.directoryCaller)
        guard let device = try await store.sharedDevice(id: id, visibleTo: caller),
            let shifts = try await store.shifts(deviceID: id, visibleTo: caller, limit: Self.historyLength),
            let permits = try await store.offlinePermitHolders(deviceID: id, visibleTo: caller, now: Date())
        else { throw DirectoryError.unknownDevice }
        var response = SharedDeviceResponse(device)
        response.shifts = shifts.map(ShiftResponse.init)
        response.offlinePermits = permits.map(SharedDeviceResponse.OfflinePermit.init)
        return response
    }

    /// Ends the device's open shift: `409 no_open_shift` when nobody holds it.
    @Sendable func endShift(_ request: Request, context: IdentifiedRequestContext) async throws -> ShiftResponse {
        guard let ended = try await changes.endShift(deviceID: try deviceID(context), by: context.identity.directoryCaller) else {
            throw APIError(.conflict, DirectoryErrorCode.noOpenShift, "Nobody holds this device: it has no open shift.")
        }
        return ShiftResponse(ended)
    }

    @Sendable func unenroll(_ request: Request, context: IdentifiedRequestContext) async throws -> Response {
        try await changes.unenrollSharedDevice(id: try deviceID(context), by: context.identity.directoryCaller)
        return Response(status: .noContent)
    }

    private func deviceID(_ context: IdentifiedRequestContext) throws -> String {
        try AdminRequests.id(context.parameters.get("device_id") ?? "", unknown: .unknownDevice)
    }
}
