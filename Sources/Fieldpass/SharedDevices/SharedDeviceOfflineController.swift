import FieldpassDomain
import Foundation
import Hummingbird

/// A shared device's offline shifts, each route proven by the key it enrolled with (DPoP):
/// `GET /shared_devices/offline_permits` answers the permits the device keeps for working
/// without a network, and `POST /shared_devices/offline_shifts` reconciles what happened while
/// it had none (``OfflineShiftRules``). A key that is no enrolled device's is refused
/// (`403 shared_device_refused`), as on the device's other routes.
struct SharedDeviceOfflineController: Sendable {
    static let permitsPath = "/shared_devices/offline_permits"
    static let shiftsPath = "/shared_devices/offline_shifts"
    /// Entries one report holds at most: a device that was offline longer reports in pages.
    static let maxEntries = 100
    /// Wrong PINs a permit's running total may say: far above any lockout, below any overflow.
    static let maxFailedPins = 1_000_000

    let store: any FieldpassStore
    let changes: DirectoryChanges
    let dpop: DPoPGate
    let tokenIssuer: TokenIssuer
    let permits: OfflinePermits

    func addRoutes(to deviceRoutes: some RouterMethods<AppRequestContext>) {
        deviceRoutes.get(RouterPath(Self.permitsPath), use: listPermits)
        deviceRoutes.post(RouterPath(Self.shiftsPath), use: reconcile)
    }

    struct Permits: ResponseEncodable {
        struct Permit: Encodable {
            var userID: String
            var permit: String
            var expiresAt: Int

            enum CodingKeys: String, CodingKey {
                case permit
                case userID = "user_id"
                case expiresAt = "expires_at"
            }
        }

        var permits: [Permit]
    }

    /// Each person's latest live permit, signed anew with their claims as they are now: the
    /// same id and end, so that a listing extends nothing.
    @Sendable func listPermits(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<Permits> {
        let proof = try dpop.requiredProof(of: request, path: Self.permitsPath)
        try await dpop.takeUse(of: proof)
        let now = Date()
        let kept: [OfflinePermitRecord]
        do {
            kept = try await store.offlinePermits(keyThumbprint: proof.thumbprint, now: now)
        } catch DirectoryError.unknownDevice {
            throw SharedDeviceShiftController.refused
        }
        var answer: [Permits.Permit] = []
        for permit in kept {
            guard let facts = try await store.accessFacts(userID: permit.userID, environmentID: permit.environmentID) else { continue }
            let signed = try permits.sign(
                id: permit.id, issuedAt: permit.issuedAt, expiresAt: permit.expiresAt, facts: facts, keyThumbprint: proof.thumbprint,
                now: now)
            answer.append(.init(userID: permit.userID, permit: signed, expiresAt: Int(permit.expiresAt.timeIntervalSince1970)))
        }
        return EditedResponse(headers: [.cacheControl: "no-store"], response: Permits(permits: answer))
    }

    struct Report: Decodable {
        struct Entry: Decodable {
            var permit: String
            var startedAt: Double?
            var endedAt: Double?
            var failedPins: Int

            enum CodingKeys: String, CodingKey {
                case permit
                case startedAt = "started_at"
                case endedAt = "ended_at"
                case failedPins = "failed_pins"
            }
        }

        var shifts: [Entry]
    }

    struct Results: ResponseEncodable {
        struct Result: Encodable {
            var permitJTI: String?
            var status: String
            var reason: String?
            var shiftID: String?
            var accessToken: String?
            var tokenType: String?
            var refreshToken: String?
            var expiresIn: Int?

            enum CodingKeys: String, CodingKey {
                case status, reason
                case permitJTI = "permit_jti"
                case shiftID = "shift_id"
                case accessToken = "access_token"
                case tokenType = "token_type"
                case refreshToken = "refresh_token"
                case expiresIn = "expires_in"
            }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(permitJTI, forKey: .permitJTI)
                try container.encode(status, forKey: .status)
                try container.encode(reason, forKey: .reason)
                try container.encode(shiftID, forKey: .shiftID)
                try container.encodeIfPresent(accessToken, forKey: .accessToken)
                try container.encodeIfPresent(tokenType, forKey: .tokenType)
                try container.encodeIfPresent(refreshToken, forKey: .refreshToken)
                try container.encodeIfPresent(expiresIn, forKey: .expiresIn)
            }
        }

        var results: [Result]
    }

    /// One result per entry, in order. The running shift, accepted, comes back with the tokens
    /// of a badge sign-in, `amr: ["pin", "badge", "offline"]`, once: an entry sent again is
    /// answered as before, without tokens.
    @Sendable func reconcile(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<Results> {
        let entries = try Self.checked(try await JSONBody.decode(Report.self, from: request, context: context))
        let proof = try dpop.requiredProof(of: request, path: Self.shiftsPath)
        // A key anyone can make costs no permit's signature check: only an acting device's does.
        guard SharedDeviceRules.acting(try await store.sharedDevice(keyThumbprint: proof.thumbprint)) != nil else {
            throw SharedDeviceShiftController.refused
        }
        let reports = zip(entries, permits.verify(entries.map(\.permit))).map { entry, permit in
            OfflineShiftReport(
                permit: permit, startedAt: entry.startedAt.map(Date.init(timeIntervalSince1970:)),
                endedAt: entry.endedAt.map(Date.init(timeIntervalSince1970:)), failedPins: entry.failedPins)
        }
        let now = Date()
        let refresh = try tokenIssuer.refreshToken()
        let window = tokenIssuer.refreshWindow(from: now)
        let running = RunningOfflineShift(
            shiftID: UUID().uuidString.lowercased(), refreshTokenHash: refresh.hash, refreshTokenExpiresAt: window.expiresAt,
            refreshTokenMaxExpiresAt: window.maxExpiresAt)
        let outcomes: [OfflineShiftResult]
        do {
            outcomes = try await dpop.recordingUse {
                try await changes.reconcileOfflineShifts(
                    reports, proof: proof, running: running, maxFailedPins: permits.maxFailedPins, skew: OfflinePermits.skew)
            }
        } catch DirectoryError.unknownDevice {
            throw SharedDeviceShiftController.refused
        }
        var results: [Results.Result] = []
        for (entry, outcome) in zip(reports, outcomes) {
            switch outcome {
            case .refused(let permitID, let reason):
                results.append(.init(permitJTI: permitID, status: "refused", reason: reason.rawValue))
            case .accepted(let permitID, let shift, let new):
                var result = Results.Result(permitJTI: permitID, status: "accepted", shiftID: shift?.id)
                if new, let shift, shift.isOpen, let environmentID = entry.permit?.environmentID,
                    let facts = try await store.accessFacts(userID: shift.userID, environmentID: environmentID)
                {
                    let access = try tokenIssuer.deviceAccessToken(
                        facts: facts, deviceID: shift.id, deviceKey: proof.thumbprint, shift: shift, now: now)
                    (result.accessToken, result.tokenType) = (access.token, access.type)
                    (result.refreshToken, result.expiresIn) = (refresh.token, tokenIssuer.accessTokenTTL)
                }
                results.append(result)
            }
        }
        return EditedResponse(headers: [.cacheControl: "no-store"], response: Results(results: results))
    }

    /// The report's entries, bounded before any permit is checked: at most ``maxEntries``,
    /// times of this era, an end not before its start, wrong PINs counted from 0, and one
    /// running shift at most, the last entry.
    private static func checked(_ report: Report) throws -> [Report.Entry] {
        let entries = report.shifts
        guard entries.count <= maxEntries else { throw APIError.invalidRequest("shifts: at most \(maxEntries) entries.") }
        let era = 0.0...253_402_300_799.0
        for (index, entry) in entries.enumerated() {
            let name = "shifts[\(index)]"
            guard entry.permit.utf8.count <= 16 * 1024 else { throw APIError.invalidRequest("\(name).permit is too long.") }
            guard (0...maxFailedPins).contains(entry.failedPins) else {
                throw APIError.invalidRequest("\(name).failed_pins must be from 0 to \(maxFailedPins).")
            }
            guard [entry.startedAt, entry.endedAt].allSatisfy({ $0.map(era.contains) ?? true }) else {
                throw APIError.invalidRequest("\(name): started_at and ended_at are epoch seconds.")
            }
            switch (entry.startedAt, entry.endedAt) {
            case (nil, nil): break
            case (nil, _?): throw APIError.invalidRequest("\(name): ended_at without started_at.")
            case (let start?, let end?):
                guard end >= start else { throw APIError.invalidRequest("\(name): ended_at is before started_at.") }
            case (_?, nil):
                guard index == entries.count - 1 else {
                    throw APIError.invalidRequest("\(name): only the last entry may be the running shift (ended_at null).")
                }
            }
        }
        return entries
    }
}
