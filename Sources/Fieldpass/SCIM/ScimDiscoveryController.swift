import FieldpassDomain
import Foundation
import Hummingbird

/// `/ServiceProviderConfig`, `/ResourceTypes` and `/Schemas` (RFC 7644 §4): what the
/// service supports, built once.
struct ScimDiscoveryController: Sendable {
    let router: ScimRouter
    private let schemas: [String: ScimJSON]
    private let resourceTypes: [String: ScimJSON]

    init(router: ScimRouter) {
        self.router = router
        let base = router.baseURL
        var schemas: [String: ScimJSON] = [:]
        for text in [ScimSchemaDocuments.user, ScimSchemaDocuments.group] {
            guard case .object(var schema)? = try? JSONDecoder().decode(ScimJSON.self, from: Data(text.utf8)),
                let id = schema["id"]?.stringValue
            else { continue }
            schema["schemas"] = .array([.string(ScimSchemas.schema)])
            schema["meta"] = .object(["resourceType": .string("Schema"), "location": .string("\(base)/Schemas/\(id)")])
            schemas[id] = .object(schema)
        }
        self.schemas = schemas
        func resourceType(_ name: String, endpoint: String, schema: String) -> ScimJSON {
            .object([
                "schemas": .array([.string(ScimSchemas.resourceType)]), "id": .string(name), "name": .string(name),
                "endpoint": .string(endpoint), "description": .string(name), "schema": .string(schema),
                "meta": .object(["resourceType": .string("ResourceType"), "location": .string("\(base)/ResourceTypes/\(name)")]),
            ])
        }
        resourceTypes = [
            "User": resourceType("User", endpoint: "/Users", schema: ScimSchemas.user),
            "Group": resourceType("Group", endpoint: "/Groups", schema: ScimSchemas.group),
        ]
    }

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        router.on(group, "ServiceProviderConfig", .get) { call, _ in try ScimResponse.json(serviceProviderConfig(call.baseURL)) }
        router.on(group, "ResourceTypes", .get) { _, _ in try list(resourceTypes) }
        router.on(group, "ResourceTypes/:id", .get) { _, context in try one(resourceTypes, context) }
        router.on(group, "Schemas", .get) { _, _ in try list(schemas) }
        router.on(group, "Schemas/:id", .get) { _, context in try one(schemas, context) }
    }

    private func list(_ items: [String: ScimJSON]) throws -> Response {
        try ScimResponse.list(items.sorted { $0.key > $1.key }.map(\.value), total: items.count, startIndex: 1)
    }

    private func one(_ items: [String: ScimJSON], _ context: AppRequestContext) throws -> Response {
        guard let id = context.parameters.get("id"), let item = items[id] else { throw ScimError.notFound("No such resource.") }
        return try ScimResponse.json(item)
    }

    private func serviceProviderConfig(_ base: String) -> ScimJSON {
        func supported(_ flag: Bool) -> ScimJSON { .object(["supported": .bool(flag)]) }
        return .object([
            "schemas": .array([.string(ScimSchemas.serviceProviderConfig)]),
            "documentationUri": .string("https://datatracker.ietf.org/doc/html/rfc7644"),
            "patch": supported(true),
            "bulk": .object(["supported": .bool(false), "maxOperations": .number(0), "maxPayloadSize": .number(0)]),
            "filter": .object(["supported": .bool(true), "maxResults": .number(Double(ScimCall.maxCount))]),
            "changePassword": supported(false), "sort": supported(false), "etag": supported(false),
            "authenticationSchemes": .array([
                .object([
                    "type": .string("oauthbearertoken"), "name": .string("Bearer token"), "primary": .bool(true),
                    "description": .string("The environment's SCIM token (scim.token_env), as Authorization: Bearer <token>."),
                ])
            ]),
            "meta": .object(["resourceType": .string("ServiceProviderConfig"), "location": .string("\(base)/ServiceProviderConfig")]),
        ])
    }
}
