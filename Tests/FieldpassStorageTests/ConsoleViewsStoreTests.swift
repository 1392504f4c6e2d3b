import Foundation
import Testing
@testable import FieldpassDomain
@testable import FieldpassStorage
import StoreTestSupport

@Suite("Console store: people, audit and onboarding")
struct ConsoleViewsStoreTests {
    static let start = ConsoleStoreTests.start

    @Test(arguments: StoreKind.allCases) func aPersonIsFoundByEmailInTheirEnvironmentOnly(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let user = try await store.ensureUser(email: "ada@example.com", environmentID: "dev", now: Self.start)
            #expect(try await store.person(email: "Ada@Example.com", environmentID: "dev") == user)
            #expect(try await store.person(email: "ada@example.com", environmentID: "other") == nil)
            #expect(try await store.person(email: "bob@example.com", environmentID: "dev") == nil)
            #expect(try await store.users(environmentID: "dev").map(\.email) == ["ada@example.com"], "a lookup creates no one")
        }
    }

    @Test(arguments: StoreKind.allCases) func searchFindsPartsOfEmailsAndDisplayNamesAsTyped(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            for email in ["a_b@example.com", "axb@example.com", "carol@example.com"] {
                _ = try await store.ensureUser(email: email, environmentID: "dev", now: Self.start)
            }
            for (email, name) in [
                ("dan@example.com", "Bob Builder"), ("eve@example.com", "100% Sales"), ("fay@example.com", "100 Sales"),
                ("gus@example.com", #"Back\Slash"#),
            ] {
                _ = try await store.provisionScimUser(
                    email: email, profile: ScimProfile(displayName: name), active: true, environmentID: "dev", actor: "scim",
                    now: Self.start
                )
            }
            _ = try await store.ensureUser(email: "builder@other.test", environmentID: "other", now: Self.start)
            func emails(_ search: String) async throws -> [String] {
                try await store.people(PeopleQuery(search: search), environmentID: "dev").map(\.user.email)
            }
            #expect(try await emails("CAROL") == ["carol@example.com"])
            #expect(try await emails("builder") == ["dan@example.com"])
            #expect(try await emails("a_b") == ["a_b@example.com"])
            #expect(try await emails("0% s") == ["eve@example.com"])
            #expect(try await emails(#"\"#) == ["gus@example.com"])
            #expect(try await emails("%") == ["eve@example.com"])
            #expect(try await emails("nobody").isEmpty)
            #expect(try await emails("").count == 7)
            let dan = try #require(try await store.people(PeopleQuery(search: "bob"), environmentID: "dev").first)
            #expect(dan.displayName == "Bob Builder")
        }
    }

    @Test(arguments: StoreKind.allCases) func peopleAreFilteredByRoleTeamAndStanding(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            var ids: [String: String] = [:]
            for name in ["active", "disabled", "manager", "member", "new"] {
                ids[name] = try await store.ensureUser(email: "\(name)@example.com", environmentID: "dev", now: Self.start).id
            }
            let signedInAt = Self.start.addingTimeInterval(60)
            for name in ["active", "disabled"] {
                let attempt = SignInAttempt(
                    userID: try #require(ids[name]), issuer: "https://idp.test", subject: name, promoteToAdmin: false)
                _ = try await store.recordSignIn(attempt, now: signedInAt)
            }
            _ = try await store.setDisabled(
                true, userID: try #require(ids["disabled"]), by: .cli(environmentID: "dev"), now: Self.start)
            _ = try await store.setRole(
                .manager, userID: try #require(ids["manager"]), by: .cli(environmentID: "dev"), managed: .none, now: Self.start)
            let team = try await store.createTeam(name: "Field", by: .cli(environmentID: "dev"), now: Self.start)
            _ = try await store.addMember(
                userID: try #require(ids["member"]), teamID: team.id, by: .cli(environmentID: "dev"), managed: .none, now: Self.start)
            func names(_ query: PeopleQuery) async throws -> [String] {
                try await store.people(query, environmentID: "dev").map { String($0.user.email.prefix { $0 != "@" }) }
            }
            #expect(try await names(PeopleQuery(status: .active)) == ["active"])
            #expect(try await names(PeopleQuery(status: .disabled)) == ["disabled"])
            #expect(try await names(PeopleQuery(status: .notSignedIn)) == ["manager", "member", "new"])
            #expect(try await names(PeopleQuery(role: .manager)) == ["manager"])
            #expect(try await names(PeopleQuery(teamID: team.id)) == ["member"])
            #expect(try await names(PeopleQuery(role: .manager, teamID: team.id)).isEmpty)
            let active = try #require(try await store.people(PeopleQuery(status: .active), environmentID: "dev").first)
            #expect(active.signedInAt == signedInAt)
            #expect(active.status == .active)
        }
    }

    @Test(arguments: StoreKind.allCases) func teamSummariesCountMembersAndSayWhetherTheViewerIsOne(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let cli = DirectoryCaller.cli(environmentID: "dev")
            var ids: [String] = []
            for number in 0..<3 {
                ids.append(try await store.ensureUser(email: "p\(number)@example.com", environmentID: "dev", now: Self.start).id)
            }
            let crew = try await store.createTeam(name: "Crew", by: cli, now: Self.start)
            let empty = try await store.createTeam(name: "Empty", by: cli, now: Self.start)
            for id in ids {
                _ = try await store.addMember(userID: id, teamID: crew.id, by: cli, managed: .none, now: Self.start)
            }
            _ = try await store.createTeam(name: "Elsewhere", by: .cli(environmentID: "other"), now: Self.start)

            let forMember = try await store.teamSummaries(environmentID: "dev", viewer: ids[0]).sorted { $0.name < $1.name }
            #expect(
                forMember == [
                    TeamSummary(id: crew.id, name: "Crew", memberCount: 3, includesViewer: true),
                    TeamSummary(id: empty.id, name: "Empty", memberCount: 0, includesViewer: false),
                ])
            let forOutsider = try await store.teamSummaries(environmentID: "dev", viewer: "someone-else")
            #expect(forOutsider.map(\.includesViewer) == [false, false])
            #expect(try await store.teamSummaries(environmentID: "other", viewer: ids[0]).map(\.name) == ["Elsewhere"])
        }
    }

    @Test(arguments: StoreKind.allCases) func peopleComeInPagesByEmailWithTheirLastSighting(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let emails = (0..<5).map { "p\($0)@example.com" }
            for email in emails.reversed() {
                _ = try await store.ensureUser(email: email, environmentID: "dev", now: Self.start)
            }
            let (session, _) = try await environment.register(email: "p3@example.com")
            var pages: [[String]] = []
            for offset in stride(from: 0, to: 6, by: 2) {
                pages.append(try await store.people(PeopleQuery(offset: offset, limit: 2), environmentID: "dev").map(\.user.email))
            }
            #expect(pages == [Array(emails[0..<2]), Array(emails[2..<4]), [emails[4]]])
            let page = try await store.people(PeopleQuery(offset: 2, limit: 2), environmentID: "dev")
            let devices = try await store.devices(userID: session.userID, environmentID: "dev")
            try #require(page.map(\.lastSeenAt) == [nil, devices.map(\.lastSeenAt).max()])
            #expect(page[1].lastSeenAt != nil)
        }
    }
}
