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
        let filter = AuditFilter(actor: field("actor"), action: field("action"), personID: field("person"))
        let before = query["before"].flatMap(Int64.init).flatMap { $0 > 0 ? $0 : nil }
        let entries = try await store.auditLog(
            environmentID: context.visit.identity.environmentID, filter: filter, before: before, limit: Self.pageSize
        )
        let filterQuery = ConsolePages.filterQuery([("actor", filter.actor), ("action", filter.action), ("person", filter.personID)])
        let older = entries.count == Self.pageSize ? entries.last.map { "?before=\($0.id)\(filterQuery)" } : nil
        let view = AuditView(
            chrome: pages.chrome("Audit", context, .audit), actor: filter.actor ?? "", action: filter.action ?? "",
            person: filter.personID ?? "", entries: Self.rows(entries), older: older
        )
        return pages.renderer.page("audit", view)
    }

    /// Entries as rows, their before and after in one line each.
    static func rows(_ entries: [AuditEntry]) -> [Row] {
        entries.map { entry in
            Row(
                id: entry.id, at: ConsolePages.time(entry.at) ?? "", actor: entry.actor, action: entry.action, target: entry.target,
                before: entry.before.map(describe), after: entry.after.map(describe)
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
