import Foundation
import Testing
@testable import FieldpassDomain

@Suite("Who changes the directory: what each caller may do, and how the audit log names them")
struct DirectoryCallerTests {
    static func person(_ role: Role) -> UserRecord {
        UserRecord(id: "u1", environmentID: "acme", email: "a@acme.test", role: role, createdAt: Date(), disabled: false)
    }

    @Test func peopleMayWhatTheirRoleAllowsAtTheAPIAndTheConsoleAlike() {
        for role in Role.allCases {
            for caller in [DirectoryCaller.admin(Self.person(role)), .console(Self.person(role))] {
                #expect(caller.may(.read) == (role != .worker), "\(caller) read")
                #expect(caller.may(.administer) == (role == .admin), "\(caller) administer")
                #expect(caller.person?.id == "u1")
                #expect(!caller.isIdentityProvider)
            }
        }
    }

    @Test func aServiceAccountChangesNobodyAndTheIdPAndTheOperatorMayAll() {
        for action in DirectoryAction.allCases {
            #expect(!DirectoryCaller.service(accountID: "sync", environmentID: "acme").may(action))
            #expect(DirectoryCaller.scim(environmentID: "acme").may(action))
            #expect(DirectoryCaller.idp(environmentID: "acme").may(action))
            #expect(DirectoryCaller.cli(environmentID: "acme").may(action))
        }
    }

    @Test func onlyScimAndTheSignInSpeakForTheIdP() {
        #expect(DirectoryCaller.scim(environmentID: "acme").isIdentityProvider)
        #expect(DirectoryCaller.idp(environmentID: "acme").isIdentityProvider)
        #expect(!DirectoryCaller.cli(environmentID: "acme").isIdentityProvider)
        #expect(!DirectoryCaller.service(accountID: "sync", environmentID: "acme").isIdentityProvider)
    }

    @Test func eachCallerHasItsActorAndEnvironment() {
        let admin = Self.person(.admin)
        let cases: [(DirectoryCaller, String)] = [
            (.admin(admin), "user:u1"), (.console(admin), "console:u1"),
            (.service(accountID: "sync", environmentID: "acme"), "service:sync"),
            (.scim(environmentID: "acme"), "scim"), (.idp(environmentID: "acme"), "idp"), (.cli(environmentID: "acme"), "cli"),
        ]
        for (caller, actor) in cases {
            #expect(caller.actor == actor)
            #expect(caller.environmentID == "acme")
        }
    }
}
