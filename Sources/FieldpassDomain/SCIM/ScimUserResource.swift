import Foundation
/// A `User` resource as sent in a POST or PUT, or as a PATCH leaves it, checked against the
/// schema Fieldpass publishes: anything else is refused, so nothing an IdP maps is silently lost.
/// What a change of a person (``ScimStore/updateScimUser(id:environmentID:actor:now:change:)``)
/// makes of them.
public struct ScimUserResource: Sendable, Equatable {
    /// As sent; the service checks it is a work email of the environment, and hands the store
    /// that email.
    public var userName: String
    public var profile: ScimProfile
    /// `nil` when not sent.
    public var active: Bool?

    public init(userName: String, profile: ScimProfile, active: Bool?) {
        self.userName = userName
        self.profile = profile
        self.active = active
    }

    package static let nameAttributes = ["formatted", "familyName", "givenName", "middleName", "honorificPrefix", "honorificSuffix"]
    package static let emailAttributes = ["value", "type", "primary", "display"]
    /// Attributes the service sets, ignored when sent back.
    private static let readOnly = ["schemas", "id", "meta", "groups"]
    private static let attributes = ["userName", "externalId", "displayName", "name", "emails", "active"]
    package static let filterable = ["userName", "externalId", "id"]
    /// Characters a string attribute has at most.
    package static let maxLength = 256
    package static let maxEmails = 10

    /// Reads a full representation.
    package static func parse(_ body: ScimJSON) throws(ScimError) -> ScimUserResource {
        guard let members = body.objectValue else { throw .invalidSyntax("The body must be a JSON object.") }
        try ScimResourceCheck.schemas(body, expected: ScimSchemas.user)
        var userName: String?
        var profile = ScimProfile()
        var active: Bool?
        for (key, value) in members {
            guard !readOnly.contains(where: { $0.caseInsensitiveCompare(key) == .orderedSame }) else { continue }
            guard let attribute = attributes.first(where: { $0.caseInsensitiveCompare(key) == .orderedSame }) else {
                throw .invalidSyntax("'\(key)' is not an attribute of Fieldpass's User schema.")
            }
            switch attribute {
            case "userName": userName = try ScimResourceCheck.string(value, attribute)
            case "externalId": profile.externalID = try ScimResourceCheck.optionalString(value, attribute)
            case "displayName": profile.displayName = try ScimResourceCheck.optionalString(value, attribute)
            case "name": profile.name = try name(value)
            case "emails": profile.emails = try emails(value)
            default: active = try ScimResourceCheck.optionalBool(value, attribute)
            }
        }
        guard let userName else { throw .invalidValue("userName is required.") }
        return ScimUserResource(userName: userName, profile: profile, active: active)
    }

    private static func name(_ value: ScimJSON) throws(ScimError) -> [String: String] {
        if value == .null { return [:] }
        guard let members = value.objectValue else { throw .invalidValue("name must be an object.") }
        var name: [String: String] = [:]
        for (key, member) in members {
            guard let sub = nameAttributes.first(where: { $0.caseInsensitiveCompare(key) == .orderedSame }) else {
                throw .invalidSyntax("'name.\(key)' is not an attribute of Fieldpass's User schema.")
            }
            name[sub] = try ScimResourceCheck.optionalString(member, "name.\(sub)")
        }
        return name
    }

    private static func emails(_ value: ScimJSON) throws(ScimError) -> [ScimEmail] {
        if value == .null { return [] }
        guard case .array(let items) = value, items.count <= maxEmails else {
            throw .invalidValue("emails must be a list of at most \(maxEmails).")
        }
        var emails: [ScimEmail] = []
        for item in items {
            guard let members = item.objectValue else { throw .invalidValue("Each of emails must be an object.") }
            var email = ScimEmail(value: "")
            for (key, member) in members {
                guard let sub = emailAttributes.first(where: { $0.caseInsensitiveCompare(key) == .orderedSame }) else {
                    throw .invalidSyntax("'emails.\(key)' is not an attribute of Fieldpass's User schema.")
                }
                switch sub {
                case "value": email.value = try ScimResourceCheck.string(member, "emails.value")
                case "type": email.type = try ScimResourceCheck.optionalString(member, "emails.type")
                case "primary": email.primary = try ScimResourceCheck.optionalBool(member, "emails.primary")
                default: email.display = try ScimResourceCheck.optionalString(member, "emails.display")
                }
            }
            guard !email.value.isEmpty else { throw .invalidValue("Each of emails needs a value.") }
            emails.append(email)
        }
        guard emails.filter({ $0.primary == true }).count <= 1 else { throw .invalidValue("At most one of emails may be primary.") }
        return emails
    }

    /// The resource's attributes as JSON (without `id` and `meta`), for PATCH to work on.
    package static func attributes(of record: ScimUserRecord) -> [String: ScimJSON] {
        var members: [String: ScimJSON] = [
            "schemas": .array([.string(ScimSchemas.user)]),
            "userName": .string(record.user.email),
            "active": .bool(!record.user.disabled),
        ]
        let profile = record.profile
        if let externalID = profile.externalID { members["externalId"] = .string(externalID) }
        if let displayName = profile.displayName { members["displayName"] = .string(displayName) }
        if !profile.name.isEmpty { members["name"] = .object(profile.name.mapValues(ScimJSON.string)) }
        if !profile.emails.isEmpty {
            members["emails"] = .array(
                profile.emails.map { email in
                    var item: [String: ScimJSON] = ["value": .string(email.value)]
                    if let type = email.type { item["type"] = .string(type) }
                    if let primary = email.primary { item["primary"] = .bool(primary) }
                    if let display = email.display { item["display"] = .string(display) }
                    return .object(item)
                })
        }
        return members
    }
}
