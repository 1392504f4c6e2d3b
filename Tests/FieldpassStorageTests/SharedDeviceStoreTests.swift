import Foundation
import Logging
import Testing
@testable import FieldpassDomain
@testable import FieldpassStorage
import StoreTestSupport

@Suite("Shared devices in the store")
struct SharedDeviceStoreTests {

    private static func create(
        _ store: any FieldpassStore, name: String = "Van 12", team: String? = nil, code: String, by caller: DirectoryCaller,
        expiresIn: TimeInterval = 900
    ) async throws -> SharedDeviceRecord {
        try await store.createSharedDevice(
            name: name, teamID: team, codeHash: code, enrollmentExpiresAt: Date() + expiresIn, by: caller, now: Date())
    }

    @Test(arguments: StoreKind.allCases) func aCodeEnrollsItsDeviceOnceAndTheKeyBecomesItsIdentity(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let admin = try await environment.admin()
            let device = try await Self.create(store, code: "code-hash-1", by: admin)
            #expect(device.state == .awaitingEnrollment)
            let enrolled = try await store.enrollSharedDevice(codeHash: "code-hash-1", proof: freshProof(by: "van-key"), now: Date())
            #expect(enrolled.id == device.id && enrolled.environmentID == "dev" && enrolled.keyThumbprint == "van-key")
            #expect(try await store.sharedDevice(id: device.id, visibleTo: admin)?.state == .enrolled)
            // Used: the same code again, by the same key or another, enrolls nothing.
            await #expect(throws: EnrollmentRefused.self) {
                try await store.enrollSharedDevice(codeHash: "code-hash-1", proof: freshProof(by: "other-key"), now: Date())
            }
            // A key enrolls one device, ever.
            _ = try await Self.create(store, name: "Van 13", code: "code-hash-2", by: admin)
            await #expect(throws: EnrollmentRefused.self) {
                try await store.enrollSharedDevice(codeHash: "code-hash-2", proof: freshProof(by: "van-key"), now: Date())
            }
            // An expired code, and an unknown one.
            _ = try await Self.create(store, name: "Van 14", code: "code-hash-3", by: admin, expiresIn: -1)
            for code in ["code-hash-3", "no-such-code"] {
                await #expect(throws: EnrollmentRefused.self) {
                    try await store.enrollSharedDevice(codeHash: code, proof: freshProof(by: "fresh-key"), now: Date())
                }
            }
            // Refused attempts wrote nothing: Van 13 enrolls with a key of its own.
            let van13 = try await store.enrollSharedDevice(codeHash: "code-hash-2", proof: freshProof(by: "fresh-key"), now: Date())
            #expect(van13.name == "Van 13")
            #expect(try await store.sharedDevices(visibleTo: admin).map(\.name) == ["Van 12", "Van 13", "Van 14"])
        }
    }

    @Test(arguments: StoreKind.allCases) func aProofIsTakenByTheEnrollment(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            _ = try await Self.create(store, code: "code-hash", by: try await environment.admin())
            let proof = freshProof(by: "van-key")
            #expect(try await store.recordDPoPProof(replayKey: proof.replayKey, expiresAt: proof.rememberUntil))
            await #expect(throws: DPoPRefusal.self) {
                try await store.enrollSharedDevice(codeHash: "code-hash", proof: proof, now: Date())
            }
            // The code still works with a fresh proof.
            _ = try await store.enrollSharedDevice(codeHash: "code-hash", proof: freshProof(by: "van-key"), now: Date())
        }
    }

    @Test(arguments: StoreKind.allCases) func aManagerLooksAfterTheDevicesOfHisTeamsOnly(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let admin = try await environment.admin()
            let cli = DirectoryCaller.cli(environmentID: "dev")
            let north = try await store.createTeam(name: "North", by: cli, now: Date())
            let south = try await store.createTeam(name: "South", by: cli, now: Date())
            let manager = try await store.setRole(.manager, email: "manager@example.com", by: cli, managed: .none, now: Date())
            _ = try await store.changeMembership(userID: manager.id, teamID: north.id, member: true, by: cli, managed: .none, now: Date())
            let worker = try await store.setRole(.worker, email: "worker@example.com", by: cli, managed: .none, now: Date())

            let northVan = try await Self.create(store, name: "North van", team: north.id, code: "n", by: .admin(manager))
            let southVan = try await Self.create(store, name: "South van", team: south.id, code: "s", by: admin)
            _ = try await Self.create(store, name: "Depot phone", code: "d", by: admin)
            await #expect(throws: DirectoryError.notAllowed(.administer)) {
                try await Self.create(store, name: "Not his", team: south.id, code: "x", by: .admin(manager))
            }
            await #expect(throws: DirectoryError.notAllowed(.administer)) {
                try await Self.create(store, name: "No team", code: "y", by: .admin(manager))
            }
            await #expect(throws: DirectoryError.notAllowed(.read)) {
                try await Self.create(store, name: "Worker's", team: north.id, code: "z", by: .admin(worker))
            }
            await #expect(throws: DirectoryError.unknownTeam) {
                try await Self.create(store, name: "Nowhere", team: "no-such-team", code: "w", by: admin)
            }

            #expect(try await store.sharedDevices(visibleTo: .admin(manager)).map(\.name) == ["North van"])
            #expect(try await store.sharedDevices(visibleTo: admin).count == 3)
            #expect(try await store.sharedDevice(id: southVan.id, visibleTo: .admin(manager)) == nil)
            await #expect(throws: DirectoryError.unknownDevice) {
                try await store.unenrollSharedDevice(id: southVan.id, by: .admin(manager), now: Date())
            }
            try await store.unenrollSharedDevice(id: northVan.id, by: .admin(manager), now: Date())
            #expect(try await store.sharedDevice(id: northVan.id, visibleTo: .admin(manager))?.state == .unenrolled)
            // An unenrolled device's code no longer works.
            await #expect(throws: EnrollmentRefused.self) {
                try await store.enrollSharedDevice(codeHash: "n", proof: freshProof(by: "north-key"), now: Date())
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func anotherEnvironmentsDeviceIsUnknown(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let device = try await Self.create(store, code: "code-hash", by: try await environment.admin())
            let other = DirectoryCaller.cli(environmentID: "other")
            #expect(try await store.sharedDevice(id: device.id, visibleTo: other) == nil)
            #expect(try await store.sharedDevices(visibleTo: other).isEmpty)
            await #expect(throws: DirectoryError.unknownDevice) {
                try await store.unenrollSharedDevice(id: device.id, by: other, now: Date())
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func aNameIsTakenWhileItsDeviceIsEnrolledOrItsCodeStillWorks(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let admin = try await environment.admin()
            let van = try await Self.create(store, name: "Van 12", code: "van", by: admin)
            // The same form sent twice, or the name in another case: refused, and nothing stored.
            for name in ["Van 12", "VAN 12"] {
                await #expect(throws: DirectoryError.sharedDeviceNameTaken) {
                    try await Self.create(store, name: name, code: "again-\(name)", by: admin)
                }
            }
            _ = try await store.enrollSharedDevice(codeHash: "van", proof: freshProof(by: "van-key"), now: Date())
            await #expect(throws: DirectoryError.sharedDeviceNameTaken) { try await Self.create(store, code: "enrolled", by: admin) }
            #expect(try await store.sharedDevices(visibleTo: admin).map(\.name) == ["Van 12"])
            // Another environment has names of its own.
            _ = try await Self.create(store, code: "theirs", by: .cli(environmentID: "other"))
            // A code that expired unused, and an unenrolled device, leave the name free.
            _ = try await Self.create(store, name: "Depot phone", code: "expired", by: admin, expiresIn: -1)
            _ = try await Self.create(store, name: "Depot phone", code: "depot", by: admin)
            try await store.unenrollSharedDevice(id: van.id, by: admin, now: Date())
            let again = try await Self.create(store, name: "van 12", code: "new-van", by: admin)
            #expect(try await store.sharedDevices(visibleTo: admin).map(\.name) == ["Van 12", "Depot phone", "Depot phone", "van 12"])
            #expect(again.state == .awaitingEnrollment)
        }
    }

    /// Ten rounds of `attempt` made at two instances of one PostgreSQL database at once, each
    /// after `prepare`: of each round's two, exactly one succeeds.
    private static func oneOfTwoInstances(
        prepare: @escaping @Sendable (any FieldpassStore, DirectoryCaller, Int) async throws -> Void = { _, _, _ in },
        _ attempt: @escaping @Sendable (_ store: any FieldpassStore, _ admin: DirectoryCaller, _ round: Int, _ side: String) async -> Bool
    ) async throws {
        try await StoreTestEnvironment.with(store: .postgres) { environment in
            let opened = try StoreFactory.open(environment.storage, realmPrefixes: environment.realmPrefixes, logger: Logger(label: "test"))
            let admin = try await environment.admin()
            try await opened.use { other in
                for round in 0..<10 {
                    try await prepare(environment.store, admin, round)
                    async let first = attempt(environment.store, admin, round, "a")
                    async let second = attempt(other, admin, round, "b")
                    let results = await [first, second]
                    #expect(results.filter { $0 }.count == 1, "round \(round)")
                }
            }
        }
    }

    @Test func oneNameNamesOneDeviceAcrossInstances() async throws {
        try await Self.oneOfTwoInstances { store, admin, round, side in
            (try? await Self.create(store, name: "Van \(round)", code: "\(side)-\(round)", by: admin)) != nil
        }
    }

    @Test func oneCodeEnrollsOneDeviceAcrossInstances() async throws {
        try await Self.oneOfTwoInstances(
            prepare: { store, admin, round in _ = try await Self.create(store, name: "Van \(round)", code: "race-\(round)", by: admin) }
        ) { store, _, round, side in
            (try? await store.enrollSharedDevice(codeHash: "race-\(round)", proof: freshProof(by: "\(side)-\(round)"), now: Date())) != nil
        }
    }
}
