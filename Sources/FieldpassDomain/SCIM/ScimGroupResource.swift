import Foundation
/// A `Group` resource as sent in a POST or PUT, or as a PATCH leaves it: a team (its
/// `displayName` the team's name, its `members` the people on it) or a role group. What a
/// change of a group (``ScimStore/updateScimGroup(id:roles:environmentID:actor:now:change:)``)
/// makes of it.
public struct ScimGroupResource: Sendable, Equatable {
    public var displayName: String
    public var externalID: String?
    /// Member user ids, in the order sent, without repeats.
    public var members: [String]

    public init(displayName: String, externalID: String?, members: [String]) {
        self.displayName = displayName
        self.externalID = externalID
        self.members = members
    }

    private static let readOnly = ["schemas", "id", "meta"]
    private static let attributes = ["displayName", "externalId", "members"]
    package static let memberAttributes = ["value", "display", "type", "$ref"]
    package static let filterable = ["displayName", "externalId", "id"]
    /// Members one group has at most.
    package static let maxMembers = 10_000

    package static func parse(_ body: ScimJSON) throws(ScimError) -> ScimGroupResource {
        guard let members = body.objectValue else { throw .invalidSyntax("The body must be a JSON object.") }
        try ScimResourceCheck.schemas(body, expected: ScimSchemas.group)
        var displayName: String?
        var externalID: String?
        var memberIDs: [String] = []
        for (key, value) in members {
            guard !readOnly.contains(where: { ScimJSON.sameName($0, key) }) else { continue }
            guard let attribute = attributes.first(where: { ScimJSON.sameName($0, key) }) else {
                throw .invalidSyntax("'\(key)' is not an attribute of Fieldpass's Group schema.")
            }
            switch attribute {
            case "displayName": displayName = try ScimResourceCheck.string(value, attribute)
            case "externalId": externalID = try ScimResourceCheck.optionalString(value, attribute)
            default: memberIDs = try Self.members(value)
            }
        }
        guard let displayName else { throw .invalidValue("displayName is required.") }
        guard let name = PrintableName.normalized(displayName) else {
            throw .invalidValue("displayName must be 1 to 100 printable characters.")
        }
        return ScimGroupResource(displayName: name, externalID: externalID, members: memberIDs)
    }

    private static func members(_ value: ScimJSON) throws(ScimError) -> [String] {
        if value == .null { return [] }
        guard case .array(let items) = value, items.count <= maxMembers else {
            throw .invalidValue("members must be a list of at most \(maxMembers).")
        }
        var ids: [String] = []
        var seen: Set<String> = []
        for item in items {
            guard let object = item.objectValue else { throw .invalidValue("Each of members must be an object.") }
            for key in object.keys where !memberAttributes.contains(where: { ScimJSON.sameName($0, key) }) {
                throw .invalidSyntax("'members.\(key)' is not an attribute of Fieldpass's Group schema.")
            }
            if let type = item.member("type")?.value.stringValue, type.lowercased() != "user" {
                throw .invalidValue("Only users can be members; groups do not nest.")
            }
            guard let id = item.member("value")?.value.stringValue, !id.isEmpty else {
                throw .invalidValue("Each of members needs a value: the user's id.")
            }
            if seen.insert(id).inserted { ids.append(id) }
        }
        return ids
    }

    /// The group's attributes as JSON (without `id` and `meta`), for PATCH to work on.
    package static func attributes(of record: ScimGroupRecord) -> [String: ScimJSON] {
        var members: [String: ScimJSON] = [
            "schemas": .array([.string(ScimSchemas.group)]),
            "displayName": .string(record.displayName),
        ]
        if let externalID = record.externalID { members["externalId"] = .string(externalID) }
        if !record.members.isEmpty { members["members"] = .array(record.members.map { .object(["value": .string($0)]) }) }
        return members
    }
}
