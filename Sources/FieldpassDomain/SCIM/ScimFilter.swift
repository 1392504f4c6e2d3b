import Foundation
/// A `filter` of a SCIM list request, as far as Fieldpass answers them: one attribute
/// compared with `eq` (RFC 7644 §3.4.2.2), which is what provisioning clients send to find
/// one resource (`userName eq "…"`, `externalId eq "…"`, `displayName eq "…"`, `id eq "…"`).
package struct ScimFilter: Sendable, Equatable {
    /// The attribute, in its schema's spelling.
    package var attribute: String
    package var value: String

    package init(attribute: String, value: String) {
        self.attribute = attribute
        self.value = value
    }

    /// Parses `text`; only `attributes` may be filtered on (any case, as the RFC allows), or
    /// any attribute when `attributes` is `nil` (a PATCH path's value selection).
    package static func parse(_ text: String, attributes: [String]?) throws(ScimError) -> ScimFilter {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let space = trimmed.firstIndex(of: " ") else { throw .invalidFilter("The filter must be: attribute eq \"value\".") }
        var name = String(trimmed[..<space])
        let rest = trimmed[space...].drop { $0 == " " }
        guard rest.count >= 2, rest.prefix(2).lowercased() == "eq" else {
            throw .invalidFilter("Only the eq operator is supported.")
        }
        let operand = rest.dropFirst(2).trimmingCharacters(in: .whitespaces)
        guard operand.count >= 2, operand.first == "\"", operand.last == "\"" else {
            throw .invalidFilter("The value must be a quoted string.")
        }
        let value = try unescape(operand.dropFirst().dropLast())
        for urn in ScimSchemas.resourceURNs where name.lowercased().hasPrefix(urn.lowercased() + ":") {
            name = String(name.dropFirst(urn.count + 1))
        }
        guard let attributes else { return ScimFilter(attribute: name, value: value) }
        guard let attribute = attributes.first(where: { $0.caseInsensitiveCompare(name) == .orderedSame }) else {
            throw .invalidFilter("Filtering on '\(name)' is not supported; use one of \(attributes.joined(separator: ", ")).")
        }
        return ScimFilter(attribute: attribute, value: value)
    }

    private static func unescape(_ text: Substring) throws(ScimError) -> String {
        var result = ""
        var escaped = false
        for character in text {
            if escaped {
                result.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "\"" {
                throw .invalidFilter("Only one comparison is supported.")
            } else {
                result.append(character)
            }
        }
        guard !escaped else { throw .invalidFilter("The value ends in an escape.") }
        return result
    }
}
