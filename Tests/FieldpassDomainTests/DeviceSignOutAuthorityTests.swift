import Foundation
import Testing
@testable import FieldpassDomain

@Suite("Who may sign out a person's device, decided on the caller as the transaction read them, without a database")
struct DeviceSignOutAuthorityTests {
    static func person(_ id: String, _ role: Role, disabled: Bool = false) -> UserRecord {
        UserRecord(
            id: id, environmentID: "acme", email: "\(id)@acme.test", role: role, createdAt: Date(), idpIssuer: nil, idpSubject: nil,
            disabled: disabled)
    }

    @Test(arguments: Role.allCases)
    func anyoneSignsOutTheirOwnDevicesAsTheyCalled(role: Role) throws {
        let me = Self.person("me", role)
        for caller in [DirectoryCaller.admin(me), .console(me)] {
            let decided = try DirectoryAuthority.authorizeDeviceSignOut(caller, current: me, userID: "me")
            #expect(decided.caller == caller)
            #expect(decided.byThemselves)
        }
    }

    @Test func theirOwnDeviceNeedsNoStandingAsReadNow() throws {
        let me = Self.person("me", .worker)
        let disabled = try DirectoryAuthority.authorizeDeviceSignOut(
            .admin(me), current: Self.person("me", .worker, disabled: true), userID: "me")
        #expect(disabled.caller == .admin(me))
        #expect(disabled.byThemselves)
        let gone = try DirectoryAuthority.authorizeDeviceSignOut(.console(me), current: nil, userID: "me")
        #expect(gone.caller == .console(me))
        #expect(gone.byThemselves)
    }

    @Test(arguments: [Role.manager, .worker])
    func anotherPersonsDeviceNeedsTheRightToAdminister(role: Role) {
        let caller = DirectoryCaller.admin(Self.person("me", role))
        #expect(throws: DirectoryError.notAllowed(.administer)) {
            try DirectoryAuthority.authorizeDeviceSignOut(caller, current: Self.person("me", role), userID: "them")
        }
    }

    @Test func anAdminSignsOutAnotherPersonsDeviceAsTheyStandNow() throws {
        var renamed = Self.person("me", .admin)
        renamed.email = "renamed@acme.test"
        let decided = try DirectoryAuthority.authorizeDeviceSignOut(.console(Self.person("me", .admin)), current: renamed, userID: "them")
        #expect(decided.caller == .console(renamed))
        #expect(!decided.byThemselves)
    }

    @Test func anAdminDemotedOrDisabledSinceIsRefusedAnotherPersonsDevice() {
        let caller = DirectoryCaller.admin(Self.person("me", .admin))
        for current in [Self.person("me", .manager), Self.person("me", .admin, disabled: true), nil] {
            #expect(throws: DirectoryError.notAllowed(.administer)) {
                try DirectoryAuthority.authorizeDeviceSignOut(caller, current: current, userID: "them")
            }
        }
    }

    @Test func theMachineSignsOutAnyDeviceAndAServiceAccountNone() throws {
        let decided = try DirectoryAuthority.authorizeDeviceSignOut(.cli(environmentID: "acme"), current: nil, userID: "them")
        #expect(decided.caller == .cli(environmentID: "acme"))
        #expect(!decided.byThemselves)
        #expect(throws: DirectoryError.notAllowed(.administer)) {
            try DirectoryAuthority.authorizeDeviceSignOut(
                .service(accountID: "backend", environmentID: "acme"), current: nil, userID: "them")
        }
    }
}
