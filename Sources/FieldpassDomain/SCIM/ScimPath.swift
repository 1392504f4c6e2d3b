import Foundation
/// The `path` of a PATCH operation (RFC 7644 §3.5.2): `attribute`, `attribute.sub`,
/// `attribute[sub eq "value"]` or `attribute[sub eq "value"].sub`, optionally behind the
/// resource's schema URN.
package struct ScimPath: Sendable, Equatable {
    package var attribute: String
    /// The value selection of a multi-valued attribute.
    package var selection: ScimFilter?
    package var subAttribute: String?

    package init(attribute: String, selection: ScimFilter? = nil, subAttribute: String? = nil) {
        self.attribute = attribute
        self.selection = selection
        self.subAttribute = subAttribute
    }

    package static func parse(_ text: String) throws(ScimError) -> ScimPath {
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        for urn in ScimSchemas.resourceURNs where rest.lowercased().hasPrefix(urn.lowercased() + ":") {
            rest = rest.dropFirst(urn.count + 1)
        }
        guard !rest.lowercased().hasPrefix("urn:") else { throw .invalidPath("The path '\(text)' names an unknown schema.") }
        var selection: ScimFilter?
        let attributeEnd = rest.firstIndex { $0 == "[" || $0 == "." } ?? rest.endIndex
        let attribute = String(rest[..<attributeEnd])
        rest = rest[attributeEnd...]
        if rest.first == "[" {
            guard let close = rest.firstIndex(of: "]") else { throw .invalidPath("The path '\(text)' has no closing bracket.") }
            do {
                selection = try ScimFilter.parse(String(rest[rest.index(after: rest.startIndex)..<close]), attributes: nil)
            } catch {
                throw .invalidPath("The path '\(text)' has an unsupported value selection: \(error.detail)")
            }
            rest = rest[rest.index(after: close)...]
        }
        var subAttribute: String?
        if rest.first == "." {
            subAttribute = String(rest.dropFirst())
            rest = rest[rest.endIndex...]
        }
        guard rest.isEmpty, Self.isName(attribute), subAttribute.map(Self.isName) ?? true else {
            throw .invalidPath("The path '\(text)' is not an attribute path.")
        }
        return ScimPath(attribute: attribute, selection: selection, subAttribute: subAttribute)
    }

    private static func isName(_ text: String) -> Bool {
        !text.isEmpty && text.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == "$" }
    }
}
