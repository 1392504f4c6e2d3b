import Foundation
import Testing
@testable import FieldpassDomain
@testable import FieldpassStorage
import StoreTestSupport

/// Offline permits and the reconciliation of offline shifts on each store: a permit kept with
/// the badge sign-in that issued it, listed while it lives, withdrawn with its badge, and a
/// report recorded once, the running shift started from its own start.
@Suite("Offline shifts in the store")
struct OfflineShiftStoreTests {

    private static func running() -> RunningOfflineShift {
        RunningOfflineShift(
            shiftID: UUID().uuidString, refreshTokenHash: UUID().uuidString, refreshTokenExpiresAt: Date() + 600,
            refreshTokenMaxExpiresAt: Date() + 3600)
    }

    @Test(arguments: StoreKind.allCases) func aPermitLivesWithItsBadgeAndAReportIsRecordedOnce(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let admin = try await environment.admin()
            let device = try await store.createSharedDevice(
                name: "Van", teamID: nil, codeHash: "code", enrollmentExpiresAt: Date() + 900, by: admin, now: Date())
            _ = try await store.enrollSharedDevice(codeHash: "code", proof: freshProof(by: "van-key"), now: Date())
            let worker = try await store.setRole(.worker, email: "w@example.com", by: admin, managed: .none, now: Date())
            let badge = BadgeRecord(
                id: UUID().uuidString, userID: worker.id, environmentID: "dev", badgeHash: "badge", pinHash: "hash", issuedAt: Date(),
                expiresAt: Date() + 3600)
            try await store.issueBadge(badge, managersIssue: false, by: admin, now: Date())
            // Whole seconds, as a device reports its times: they come back from the store as they went in.
            let issued = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
            let permit = OfflinePermitIssue(id: "permit-1", expiresAt: issued + 3600)
            let outcome = try await store.signInWithBadge(
                BadgeAttempt(
                    badgeHash: "badge", checkedPinHash: "hash", pinMatched: true, newPinHash: "own", proof: freshProof(by: "van-key"),
                    shiftID: UUID().uuidString, refreshTokenHash: UUID().uuidString, refreshTokenExpiresAt: issued + 600,
                    refreshTokenMaxExpiresAt: issued + 3600, settings: BadgeSettings(), offlinePermit: permit),
                now: issued)
            guard case .signedIn(let online) = outcome else {
                Issue.record("\(outcome)")
                return
            }
            #expect(try await store.offlinePermits(keyThumbprint: "van-key", now: Date()).map(\.id) == ["permit-1"])
            #expect(try await store.offlinePermits(keyThumbprint: "van-key", now: issued + 3601).isEmpty)
            await #expect(throws: DirectoryError.unknownDevice) { _ = try await store.offlinePermits(keyThumbprint: "other", now: Date()) }

            let claims = OfflineShiftReport.Permit(
                id: "permit-1", userID: worker.id, environmentID: "dev", keyThumbprint: "van-key", issuedAt: issued,
                expiresAt: issued + 3600)
            let start = issued + 1
            let reports = [OfflineShiftReport(permit: claims, startedAt: start, endedAt: nil, failedPins: 1)]
            let first = try await store.reconcileOfflineShifts(
                reports, proof: freshProof(by: "van-key"), running: Self.running(), maxFailedPins: 5, skew: 60, now: start + 5)
            guard case .accepted("permit-1", let shift?, true) = first.first else {
                Issue.record("\(first)")
                return
            }
            #expect(try await store.openShift(keyThumbprint: "van-key")?.id == shift.id)
            #expect(try await store.openShift(keyThumbprint: "van-key")?.startedAt == start)
            #expect(try await store.openShift(keyThumbprint: "van-key")?.offlinePermitID == "permit-1")
            #expect(try await store.badge(hash: "badge")?.failedPins == 1)
            // Again: the same answer, nothing recorded, the wrong PIN not counted twice.
            let again = try await store.reconcileOfflineShifts(
                reports, proof: freshProof(by: "van-key"), running: Self.running(), maxFailedPins: 5, skew: 60, now: start + 6)
            #expect(again == [.accepted(permitID: "permit-1", shift: try await store.openShift(keyThumbprint: "van-key"), new: false)])
            #expect(try await store.badge(hash: "badge")?.failedPins == 1)
            let history = try #require(try await store.shifts(deviceID: device.id, visibleTo: admin, limit: 10))
            #expect(history.map(\.id) == [shift.id, online.id] && history.last?.endReason == .nextWorker)

            // The badge revoked: the permit is withdrawn, no longer listed, and refused from then on.
            try await store.revokeBadge(userID: worker.id, by: admin, now: Date())
            #expect(try await store.offlinePermits(keyThumbprint: "van-key", now: Date()).isEmpty)
            let holders = try #require(try await store.offlinePermitHolders(deviceID: device.id, visibleTo: admin, now: Date()))
            #expect(holders.map(\.email) == ["w@example.com"] && holders.first?.permit.withdrawnAt != nil)
            let later = Date() + 1
            let refused = try await store.reconcileOfflineShifts(
                [OfflineShiftReport(permit: claims, startedAt: later, endedAt: later, failedPins: 1)], proof: freshProof(by: "van-key"),
                running: Self.running(), maxFailedPins: 5, skew: 60, now: later + 1)
            #expect(refused == [.refused(permitID: "permit-1", .badgeRevoked)])
        }
    }
}
