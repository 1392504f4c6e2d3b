import FieldpassDomain
import Foundation
import Hummingbird

/// `/admin/users…`: people, their roles, grants and effective realms; and the audit log.
///
/// Admins and managers may read; only admins may change. Everything is scoped to the
/// caller's environment: a user of another environment is unknown here.
struct AdminUsersController: Sendable {
    let directory: any DirectoryStore & ConsoleStore
    let policy: RealmPolicy
    let changes: DirectoryChanges

    func addRoutes(to routes: DirectoryRoutes) {
        routes.on(.get, "users", .read, use: list)
        routes.on(.get, "users/:user_id", .read, use: show)
        routes.on(.put, "users/:user_id/role", .administer, use: setRole)
        routes.on(.get, "users/:user_id/permissions", .read, use: permissions)
        routes.on(.put, "users/:user_id/grants", .administer, use: grant)
        routes.on(.delete, "users/:user_id/grants", .administer, use: revoke)
        routes.on(.get, "audit", .administer, use: audit)
    }

    @Sendable func list(_ request: Request, context: IdentifiedRequestContext) async throws -> AdminResponses.Users {
        return AdminResponses.Users(users: try await directory.users(environmentID: context.identity.environmentID))
    }

    @Sendable func show(_ request: Request, context: IdentifiedRequestContext) async throws -> UserRecord {
        guard let user = try await directory.user(id: try userID(context), environmentID: context.identity.environmentID) else {
            throw DirectoryError.unknownUser
        }
        return user
    }

    @Sendable func setRole(_ request: Request, context: IdentifiedRequestContext) async throws -> UserRecord {
        let role = try await JSONBody.decode(AdminRequests.RoleChange.self, from: request, context: context).validated()
        return try await changes.setRole(role, userID: try userID(context), by: context.identity.directoryCaller)
    }

    @Sendable func permissions(_ request: Request, context: IdentifiedRequestContext) async throws -> AdminResponses.Permissions {
        guard let facts = try await directory.accessFacts(userID: try userID(context), environmentID: context.identity.environmentID) else {
            throw DirectoryError.unknownUser
        }
        return AdminResponses.Permissions(facts: facts, policy: policy)
    }

    @Sendable func grant(_ request: Request, context: IdentifiedRequestContext) async throws -> AdminResponses.Permissions {
        let grant = try await JSONBody.decode(AdminRequests.Grant.self, from: request, context: context)
            .validated(prefixes: policy.prefixes, environmentID: context.identity.environmentID)
        let facts = try await changes.setGrant(
            grant.access, realmPath: grant.path, userID: try userID(context), by: context.identity.directoryCaller)
        return AdminResponses.Permissions(facts: facts, policy: policy)
    }

    @Sendable func revoke(_ request: Request, context: IdentifiedRequestContext) async throws -> AdminResponses.Permissions {
        guard let path = request.uri.queryParameters.get("realm_path") else {
            throw APIError.invalidRequest("realm_path is required.")
        }
        let facts = try await changes.setGrant(
            nil, realmPath: try AdminRequests.realmPath(path, prefixes: policy.prefixes, environmentID: context.identity.environmentID),
            userID: try userID(context), by: context.identity.directoryCaller
        )
        return AdminResponses.Permissions(facts: facts, policy: policy)
    }

    @Sendable func audit(_ request: Request, context: IdentifiedRequestContext) async throws -> AdminResponses.AuditPage {
        let query = request.uri.queryParameters
        let limit = try QueryValue.integer(query.get("limit"), name: "limit", in: 1...500) ?? 100
        let before = try QueryValue.integer(query.get("before"), name: "before", in: 1...Int.max).map(Int64.init)
        let entries = try await directory.auditLog(environmentID: context.identity.environmentID, before: before, limit: limit)
        return AdminResponses.AuditPage(entries: entries, nextBefore: entries.count == limit ? entries.last?.id : nil)
    }

    private func userID(_ context: IdentifiedRequestContext) throws -> String {
        try AdminRequests.id(context.parameters.get("user_id") ?? "", unknown: .unknownUser)
    }
}
