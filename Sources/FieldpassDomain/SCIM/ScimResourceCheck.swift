import Foundation
/// The checks every resource's attributes share.
package enum ScimResourceCheck {
    /// `schemas` must be sent and name the resource's schema, and no other.
    package static func schemas(_ body: ScimJSON, expected: String) throws(ScimError) {
        guard case .array(let schemas)? = body.member("schemas")?.value, !schemas.isEmpty else {
            throw .invalidSyntax("schemas must list \(expected).")
        }
        for schema in schemas {
            guard schema.stringValue?.caseInsensitiveCompare(expected) == .orderedSame else {
                throw .invalidSyntax("The schema \(schema.stringValue ?? "?") is not supported; schemas must be [\(expected)].")
            }
        }
    }

    package static func string(_ value: ScimJSON, _ attribute: String) throws(ScimError) -> String {
        guard let text = try optionalString(value, attribute) else { throw .invalidValue("\(attribute) must not be empty.") }
        return text
    }

    /// A string of at most ``ScimUserResource/maxLength`` printable characters, `nil` for null or "".
    package static func optionalString(_ value: ScimJSON, _ attribute: String) throws(ScimError) -> String? {
        if value == .null { return nil }
        guard let text = value.stringValue else { throw .invalidValue("\(attribute) must be a string.") }
        guard text.count <= ScimUserResource.maxLength, !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw .invalidValue("\(attribute) must be at most \(ScimUserResource.maxLength) printable characters.")
        }
        return text.isEmpty ? nil : text
    }

    /// A boolean, or the strings `"True"` and `"False"` in any case (as Entra ID sends them).
    package static func optionalBool(_ value: ScimJSON, _ attribute: String) throws(ScimError) -> Bool? {
        switch value {
        case .null: return nil
        case .bool(let flag): return flag
        case .string(let text) where ["true", "false"].contains(text.lowercased()): return text.lowercased() == "true"
        default: throw .invalidValue("\(attribute) must be true or false.")
        }
    }
}
