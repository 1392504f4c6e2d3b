import FieldpassDomain
import Foundation
import Hummingbird

/// The shared device's own routes, each proven by the key it enrolled with (a DPoP proof,
/// RFC 9449): `POST /shared_devices/shift` starts a shift with badge and PIN (``BadgeSignIn``),
/// `GET /shared_devices/shift` says who holds the device,
/// `DELETE /shared_devices/shift` ends the worker's shift (`signed_out`), and
/// `GET /shared_devices/events?after=N&wait=S` is the long-poll every app on the device
/// follows to hear shifts start and end. A key that is no enrolled device's is refused
/// (`403 shared_device_refused`): unenrolled, its key is refused from then on, a waiting poll
/// of it too. A waiting poll holds its device's place of ``DeviceLongPolls``, or is refused with `503`.
struct SharedDeviceShiftController: Sendable {
    static let shiftPath = "/shared_devices/shift"
    static let eventsPath = "/shared_devices/events"
    /// Events one answer holds at most; the device asks again after the last.
    static let pageSize = 100

    let store: any SharedDeviceStore
    let changes: DirectoryChanges
    let dpop: DPoPGate
    let longPoll: LongPoll
    let places: DeviceLongPolls
    let signal: ChangeSignal
    let badgeSignIn: BadgeSignIn

    struct Events: ResponseEncodable {
        var events: [ShiftEvent]
    }

    /// `{"shift": {...}}`, or `{"shift": null}` when nobody holds the device.
    struct Holder: ResponseEncodable {
        var shift: ShiftResponse?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(shift, forKey: .shift)
        }

        enum CodingKeys: String, CodingKey {
            case shift
        }
    }

    /// A sign-in is limited as the start of any sign-in is (`signIns`); the device's other
    /// routes as its event polls are (`deviceRoutes`).
    func addRoutes(signIns: some RouterMethods<AppRequestContext>, deviceRoutes: some RouterMethods<AppRequestContext>) {
        signIns.post(RouterPath(Self.shiftPath), use: badgeSignIn.signIn)
        deviceRoutes.get(RouterPath(Self.shiftPath), use: currentShift)
        deviceRoutes.delete(RouterPath(Self.shiftPath), use: endShift)
        deviceRoutes.get(RouterPath(Self.eventsPath), use: events)
    }

    @Sendable func currentShift(_ request: Request, context: AppRequestContext) async throws -> Holder {
        let proof = try dpop.requiredProof(of: request, path: Self.shiftPath)
        try await dpop.takeUse(of: proof)
        do {
            return Holder(shift: try await store.openShift(keyThumbprint: proof.thumbprint).map(ShiftResponse.init))
        } catch DirectoryError.unknownDevice {
            throw Self.refused
        }
    }

    /// Ends the open shift, if there is one: signing out twice is signing out.
    @Sendable func endShift(_ request: Request, context: AppRequestContext) async throws -> Response {
        let proof = try dpop.requiredProof(of: request, path: Self.shiftPath)
        do {
            _ = try await dpop.recordingUse { try await changes.endShift(provenBy: proof) }
        } catch DirectoryError.unknownDevice {
            throw Self.refused
        }
        return Response(status: .noContent)
    }

    @Sendable func events(_ request: Request, context: AppRequestContext) async throws -> Events {
        let query = request.uri.queryParameters
        let after = try QueryValue.integer(query.get("after"), name: "after", in: 0...Int.max) ?? 0
        let wait =
            try QueryValue.integer(query.get("wait"), name: "wait", in: 0...Int.max)
            .map { min($0, EventPollController.maxWaitSeconds) } ?? 0
        let proof = try dpop.requiredProof(of: request, path: Self.eventsPath)
        try await dpop.takeUse(of: proof)
        let key = proof.thumbprint
        guard let device = SharedDeviceRules.acting(try await store.sharedDevice(keyThumbprint: key)) else { throw Self.refused }
        // A device unenrolled while its poll waits is refused at the poll's next look, as its next
        // poll would be, rather than answered with nothing: its apps learn it within seconds.
        let read = { [store] () async throws -> [ShiftEvent] in
            guard let events = try await store.shiftEvents(keyThumbprint: key, after: after, limit: Self.pageSize) else {
                throw Self.refused
            }
            return events
        }
        guard wait > 0 else { return Events(events: try await read()) }
        let events = try await places.withPlace(device: key, environment: device.environmentID) { ending in
            try await longPoll.entries(wait: wait, signal: signal, endedBy: ending, read)
        }
        guard let events else { throw LongPoll.busy }
        return Events(events: events)
    }

    static let refused = APIError(
        .forbidden, OnboardingErrorCode.sharedDeviceRefused, "This key is no enrolled shared device's.")
}
