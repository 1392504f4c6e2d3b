import FieldpassDomain
import Foundation
import Hummingbird

/// `GET /console/people`: everyone in the environment, searched, filtered and paged.
struct ConsolePeopleController: Sendable {
    let store: any FieldpassStore
    let pages: ConsolePages

    static let pageSize = 50
    /// Paging stops here (half a million people); a search narrows further than paging would.
    static let lastPage = 10_000

    func addRoutes(to group: RouterGroup<ConsoleRequestContext>) {
        group.get("people", use: list)
    }

    @Sendable func list(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        let query = ConsoleForm.query(request)
        let environmentID = context.visit.identity.environmentID
        let page = max(1, min(Self.lastPage, Int(query["page"] ?? "") ?? 1))
        let search = query["q"].map { String($0.trimmingCharacters(in: .whitespaces).prefix(100)) } ?? ""
        let role = query["role"].flatMap(Role.init(rawValue:))
        let status = query["status"].flatMap(PeopleQuery.Status.init(rawValue:))
        let teams = try await store.teamSummaries(environmentID: environmentID, viewer: context.visit.user.id)
            .sorted { $0.name.lowercased() < $1.name.lowercased() }
        let teamID = query["team"].flatMap { id in teams.first { $0.id == id }?.id }
        // One more than a page says whether there is a next one.
        let people = try await store.people(
            PeopleQuery(
                search: search.isEmpty ? nil : search, role: role, teamID: teamID, status: status,
                offset: (page - 1) * Self.pageSize, limit: Self.pageSize + 1
            ),
            environmentID: environmentID
        )
        let filterQuery = ConsolePages.filterQuery([
            ("q", search), ("role", role?.rawValue), ("team", teamID), ("status", status?.rawValue),
        ])
        let view = PeopleView(
            chrome: pages.chrome("People", context, .people), search: search,
            roles: Role.allCases.map { Option(value: $0.rawValue, label: $0.rawValue, selected: $0 == role) },
            teams: teams.map { Option(value: $0.id, label: $0.name, selected: $0.id == teamID) },
            statuses: PeopleQuery.Status.allCases.map { Option(value: $0.rawValue, label: Self.label($0), selected: $0 == status) },
            people: people.prefix(Self.pageSize).map { person in
                Row(
                    id: person.user.id, email: ConsoleText(person.user.email), name: person.displayName.map(ConsoleText.init),
                    role: person.user.role.rawValue,
                    status: Self.label(person.status), lastSeen: ConsolePages.time(person.lastSeenAt ?? person.signedInAt)
                )
            },
            page: page,
            previous: page > 1 ? "?page=\(page - 1)\(filterQuery)" : nil,
            next: people.count > Self.pageSize && page < Self.lastPage ? "?page=\(page + 1)\(filterQuery)" : nil
        )
        return pages.renderer.page("people", view)
    }

    static func label(_ status: PeopleQuery.Status) -> String {
        switch status {
        case .notSignedIn: "not signed in yet"
        case .active: "active"
        case .disabled: "disabled"
        }
    }

    struct Option {
        let value: String
        let label: String
        let selected: Bool
    }

    struct Row {
        let id: String
        let email: ConsoleText
        let name: ConsoleText?
        let role: String
        let status: String
        let lastSeen: String?
    }

    struct PeopleView {
        let chrome: ConsoleChrome
        let search: String
        let roles: [Option]
        let teams: [Option]
        let statuses: [Option]
        let people: [Row]
        let page: Int
        let previous: String?
        let next: String?
    }
}
