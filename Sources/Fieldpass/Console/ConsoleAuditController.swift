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
            : try await store.auditLog(
                environmentID: environmentID, filter: filter, before: before, limit: Self.pageSize
            )
        let filterQuery = ConsolePages.filterQuery([("actor", filter.actor), ("action", filter.action), ("person", person)])
        let older = entries.count == Self.pageSize ? entries.last.map { "?before=\($0.id)\(filterQuery)" } : nil
        let view = AuditView(
            chrome: pages.chrome("Audit", context, .audit), actor: filter.actor ?? "", action: filter.action ?? "",
            person: person ?? "", entries: try await Self.rows(entries, store: store, environmentID: environmentID),
            older: older
        )
        return pages.renderer.page("audit", view)
    }

    /// How the console shows each of `names`, as the audit log names actors and targets: a
    /// person (`user:<id>`, `console:<id>`) by email, one read each; anything else as it is.
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

    /// Entries as rows, people by email, their before and after in one line each.
    static func rows(_ entries: [AuditEntry], store: any DirectoryStore, environmentID: String) async throws -> [Row] {
        let names = try await shown(entries.flatMap { [$0.actor, $0.target] }, store: store, environmentID: environmentID)
        return entries.map { entry in
            Row(
                id: entry.id, at: ConsolePages.time(entry.at) ?? "", actor: names[entry.actor] ?? entry.actor, action: entry.action,
                target: names[entry.target] ?? entry.target, before: entry.before.map(describe), after: entry.after.map(describe)
            )
        }
    }

    private static func describe(_ values: [String: String]) -> String {
        values.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ")
    }

    struct Row {
        let id: Int64
        let at: String
        let actor: String
        let action: String
        let target: String
        let before: String?
        let after: String?
    }

    struct AuditView {
        let chrome: ConsoleChrome
        let actor: String
        let action: String
        let person: String
        let entries: [Row]
        let older: String?
    }
}
