import Foundation
import Testing
@testable import FieldpassDomain
import StoreTestSupport

/// The audit page reads, with each entry, what a person reads for the ids it holds: people
/// by email, teams and devices by name, as they are named now.
@Suite("Audit log named")
struct AuditNamesStoreTests {

    @Test(arguments: StoreKind.allCases) func eachEntryComesWithTheNamesOfThePeopleTeamsAndDevicesItHoldsByID(
        _ kind: StoreKind
    ) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let admin = try await environment.admin(email: "boss@example.com")
            let ada = try await store.setRole(
                .manager, email: "ada@example.com", by: .cli(environmentID: "dev"), managed: .none, now: Date())
            let team = try await store.createTeam(name: "Night shift", by: admin, now: Date())
            _ = try await store.addMember(userID: ada.id, teamID: team.id, by: admin, managed: .none, now: Date())
            let van = try await store.createSharedDevice(
                name: "Van 12", teamID: team.id, codeHash: "code", enrollmentExpiresAt: Date() + 900, by: admin, now: Date())
            _ = try await store.enrollSharedDevice(codeHash: "code", proof: freshProof(by: "van-key"), now: Date())
            // Ada starts a shift on the van with her badge and the temporary PIN the admin made.
            try await store.issueBadge(
                BadgeRecord(
                    id: UUID().uuidString, userID: ada.id, environmentID: "dev", badgeHash: "badge", pinHash: "pin", issuedAt: Date(),
                    expiresAt: Date() + 3600),
                managersIssue: false, by: admin, now: Date())
            let attempt = BadgeAttempt(
                badgeHash: "badge", checkedPinHash: "pin", pinMatched: true, newPinHash: "mine", proof: freshProof(by: "van-key"),
                shiftID: UUID().uuidString, refreshTokenHash: UUID().uuidString, refreshTokenExpiresAt: Date() + 600,
                refreshTokenMaxExpiresAt: Date() + 3600, settings: BadgeSettings(maxFailedPins: 3))
            guard case .signedIn = try await store.signInWithBadge(attempt, now: Date()) else {
                Issue.record("ada's badge sign-in was refused")
                return
            }
            // And signs in on her own phone.
            let (phone, state) = try await environment.register(email: "ada@example.com")
            _ = try await store.completeLogin(
                CompletedLogin.test(try #require(try await store.consumeState(state, now: Date()))), now: Date())

            var log = try await store.namedAuditLog(environmentID: "dev", filter: .all, before: nil, limit: 50)
            #expect(log.map(\.entry) == (try await store.auditLog(environmentID: "dev", filter: .all, before: nil, limit: 50)))
            func entry(_ action: String) throws -> NamedAuditEntry {
                try #require(log.first { $0.entry.action == action }, "no \(action) in \(log.map(\.entry.action))")
            }
            let added = try entry("team.add_member")
            #expect(added.actorName == "boss@example.com" && added.targetName == "Night shift")
            #expect(added.fieldNames == ["user": "ada@example.com"])
            let created = try entry("shared_device.create")
            #expect(created.targetName == "Van 12" && created.fieldNames == ["team_id": "Night shift"])
            #expect(try entry("shared_device.enroll").actorName == "Van 12")
            let started = try entry("shift.start")
            #expect(started.actorName == "ada@example.com" && started.targetName == "Van 12")
            #expect(started.fieldNames == ["user": "ada@example.com"])
            let badgeSignIn = try entry("badge.sign_in")
            #expect(badgeSignIn.fieldNames == ["shared_device_id": "Van 12", "pin_issued_by": "boss@example.com"])
            let phoneEntries = log.filter { $0.entry.after?["device_id"] == phone.deviceID }
            #expect(!phoneEntries.isEmpty && phoneEntries.allSatisfy { $0.fieldNames["device_id"] == "Pixel" })
            // Something named by an id of another kind, or by none, is not named.
            let roleSet = try entry("user.role")
            #expect(roleSet.actorName == nil && roleSet.targetName == "ada@example.com" && roleSet.fieldNames.isEmpty)

            // A team that is gone has no name any more: its own entries still say it.
            try await store.deleteTeam(id: team.id, by: admin, now: Date())
            log = try await store.namedAuditLog(environmentID: "dev", filter: AuditFilter(action: "team.add_member"), before: nil, limit: 5)
            #expect(log.map(\.targetName) == [nil] && log.first?.fieldNames == ["user": "ada@example.com"])
            #expect(try await store.namedAuditLog(environmentID: "other", filter: .all, before: nil, limit: 5).isEmpty)
        }
    }
}
