import FieldpassDomain
import Foundation
import Hummingbird

/// `/scim/v2/Users`: people, created before their first sign-in with their personal realm.
///
/// `active: false` disables the person at once (every device revoked, as the admin API's
/// disable); DELETE disables them too and takes them out of SCIM, keeping their audit
/// history and realm. Every change is audited with the actor `scim`.
struct ScimUsersController: ScimResourceController {
    let store: any FieldpassStore
    /// Every change goes through the directory's one door, with the caller `scim`.
    let changes: DirectoryChanges
    let router: ScimRouter

    static let collection: RouterPath = "Users"
    static let item: RouterPath = "Users/:id"

    static let filterable = ScimUserResource.filterable

    func page(
        _ call: ScimCall, filter: (attribute: String, value: String)?, offset: Int, limit: Int
    ) async throws -> ScimPage<ScimUserRecord> {
        try await store.scimUsers(environmentID: call.environment.id, filter: filter, offset: offset, limit: limit)
    }

    static func render(_ record: ScimUserRecord, baseURL: String) -> [String: ScimJSON] {
        ScimRepresentation.user(record, baseURL: baseURL)
    }

    @Sendable func create(_ call: ScimCall, context: AppRequestContext) async throws -> Response {
        let resource = try ScimUserResource.parse(try await call.body())
        let email = try call.workEmail(resource.userName)
        let record = try await changes.provisionScimUser(
            email: email, profile: resource.profile, active: resource.active ?? true, by: call.caller)
        let body = ScimRepresentation.user(record, baseURL: call.baseURL)
        return try ScimResponse.json(.object(body), status: .created, location: "\(call.baseURL)/Users/\(record.user.id)")
    }

    @Sendable func replace(_ call: ScimCall, context: AppRequestContext) async throws -> Response {
        let id = try call.id(context)
        let body = try await call.body()
        return try await update(id, call) { _ in try ScimUserResource.parse(body) }
    }

    @Sendable func patch(_ call: ScimCall, context: AppRequestContext) async throws -> Response {
        let id = try call.id(context)
        let operations = try ScimPatch.operations(try await call.body())
        return try await update(id, call) { current in
            try ScimUserResource.parse(.object(try ScimPatch.apply(operations, to: ScimUserResource.attributes(of: current))))
        }
    }

    @Sendable func delete(_ call: ScimCall, context: AppRequestContext) async throws -> Response {
        // A person SCIM does not list is `DirectoryError.unknownUser`: 404.
        try await changes.removeScimUser(id: try call.id(context), by: call.caller)
        return Response(status: .noContent)
    }

    /// PUT and PATCH alike: `resource` makes the whole resource as it should be of the person
    /// as stored, inside the transaction that writes it (``DirectoryChanges/updateScimUser(id:by:change:)``).
    private func update(
        _ id: String, _ call: ScimCall, _ resource: @escaping @Sendable (ScimUserRecord) throws -> ScimUserResource
    ) async throws -> Response {
        let record = try await changes.updateScimUser(id: id, by: call.caller) { current in
            var wanted = try resource(current)
            wanted.userName = try call.workEmail(wanted.userName)
            return wanted
        }
        return try Self.answer(ScimRepresentation.user(record, baseURL: call.baseURL), call)
    }

    func existing(_ id: String, _ call: ScimCall) async throws -> ScimUserRecord {
        guard let record = try await store.scimUser(id: id, environmentID: call.environment.id) else {
            throw ScimError.notFound("No such user.")
        }
        return record
    }
}
