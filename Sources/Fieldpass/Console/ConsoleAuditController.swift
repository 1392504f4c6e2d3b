import FieldpassDomain
import Foundation
import Hummingbird

/// `GET /console/audit`: the audit log, newest first, filtered by actor, action and person,
/// paged. Admins only, as `GET /admin/audit`.
struct ConsoleAuditController: Sendable {
    let store: any FieldpassStore
    let pages: ConsolePages

    static let pageSize = 50

    func addRoutes(to group: RouterGroup<ConsoleRequestContext>) {
        group.get("audit", use: list)
    }

    @Sendable func list(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        if let refusal = pages.requireAdmin(context) { return refusal }
        let query = ConsoleForm.query(request)
        func field(_ name: String) -> String? {
            query[name].map { String($0.trimmingCharacters(in: .whitespaces).prefix(200)) }.flatMap { $0.isEmpty ? nil : $0 }
        }
        let environmentID = context.visit.identity.environmentID
        let person = field("person")
        // A person is named by email, as the console shows them; an id still works.
        var personID = person
        if let person, person.contains("@") {
            personID = try await store.person(email: person.lowercased(), environmentID: environmentID)?.id
        }
        let filter = AuditFilter(actor: field("actor"), action: field("action"), personID: personID)
        let before = query["before"].flatMap(Int64.init).flatMap { $0 > 0 ? $0 : nil }
        // An email nobody has matches nothing, rather than every entry.
        let entries =
            person != nil && personID == nil
            ? []
            : try await store.namedAuditLog(
                environmentID: environmentID, filter: filter, before: before, limit: Self.pageSize
            )
        let filterQuery = ConsolePages.filterQuery([("actor", filter.actor), ("action", filter.action), ("person", person)])
        let older = entries.count == Self.pageSize ? entries.last.map { "?before=\($0.entry.id)\(filterQuery)" } : nil
        let view = AuditView(
            chrome: pages.chrome("Audit", context, .audit), actor: filter.actor ?? "", action: filter.action ?? "",
            person: person ?? "", entries: entries.map { ConsoleAuditRow($0, base: pages.base) }, older: older
        )
        return pages.renderer.page("audit", view)
    }

    /// How the console shows each of `names`, actors as the audit log writes them: a person
    /// (`user:<id>`, `console:<id>`) by email, one read each; anything else as it is.
    static func shown(_ names: [String], store: any DirectoryStore, environmentID: String) async throws -> [String: String] {
        var emails: [String: String] = [:]
        for id in Set(names.compactMap(personID)) {
            emails[id] = try await store.user(id: id, environmentID: environmentID)?.email
        }
        var shown: [String: String] = [:]
        for name in names {
            guard let id = personID(name), let email = emails[id] else {
                shown[name] = name
                continue
            }
            shown[name] = name.hasPrefix("console:") ? "\(email) (console)" : email
        }
        return shown
    }

    /// The person an actor or target names, if it names one.
    private static func personID(_ name: String) -> String? {
        for prefix in ["user:", "console:"] where name.hasPrefix(prefix) { return String(name.dropFirst(prefix.count)) }
        return nil
    }

    struct AuditView {
        let chrome: ConsoleChrome
        let actor: String
        let action: String
        let person: String
        let entries: [ConsoleAuditRow]
        let older: String?
    }
}
