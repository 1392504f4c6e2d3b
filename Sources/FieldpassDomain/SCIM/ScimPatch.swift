import Foundation
/// PATCH (RFC 7644 §3.5.2) applied to a resource's JSON representation, which the resource's
/// own rules then check as if it had been sent whole: one interpreter for users and groups.
///
/// What Entra ID's provisioning sends is accepted: `op` in any case (`Replace`), a `replace`
/// without a path whose value names paths (`{"name.givenName": …}`), `remove` of `members`
/// with the members to remove as its value, and a value selection that matches nothing
/// (`emails[type eq "work"].value` on a person without emails) adds the element.
package enum ScimPatch {
    package enum Op: String, Sendable {
        case add, replace, remove
    }

    package struct Operation: Sendable, Equatable {
        package var op: Op
        package var path: ScimPath?
        package var value: ScimJSON?

        package init(op: Op, path: ScimPath?, value: ScimJSON?) {
            self.op = op
            self.path = path
            self.value = value
        }
    }

    // The limits of one request. RFC 7643's service provider config has no place for them
    // (Docs/identity-providers.md lists them); each is far above what an IdP sends (Entra ID
    // and Okta send a few hundred operations at most, of a few values each), and past one
    // the request is refused with `400 tooMany` before the work that would exceed it.

    /// At most this many operations in one request.
    package static let maxOperations = 1000
    /// At most this many values in one operation: list elements, counted through an object
    /// value's members too.
    package static let maxValuesPerOperation = 1000
    /// At most this much work in one request, so that its CPU time is bounded whatever its
    /// operations are: each operation counts one, each value it adds or removes and each
    /// element it picks one more, and each pass over a multi-valued attribute's elements as
    /// many as it has: the one that indexes it for the request, and each value selection on
    /// another sub-attribute than `value` (`members[display eq "…"]`), which no index answers.
    /// A selection by `value` on a group of 10,000 counts one; a pass counts 10,000.
    package static let maxTouched = 100_000

    /// The operations of a `PatchOp` body.
    package static func operations(_ body: ScimJSON) throws(ScimError) -> [Operation] {
        guard body.objectValue != nil else { throw .invalidSyntax("The body must be a JSON object.") }
        guard case .array(let schemas)? = body.member("schemas")?.value,
            schemas.contains(where: { $0.stringValue.map { ScimJSON.sameName($0, ScimSchemas.patchOp) } ?? false })
        else { throw .invalidSyntax("schemas must list \(ScimSchemas.patchOp).") }
        guard case .array(let items)? = body.member("Operations")?.value, !items.isEmpty else {
            throw .invalidSyntax("Operations must be a list of operations.")
        }
        guard items.count <= maxOperations else {
            throw .tooMany("A PATCH carries at most \(maxOperations) operations; split this one into smaller ones.")
        }
        for key in body.objectValue?.keys ?? [:].keys
        where !["schemas", "operations"].contains(key.lowercased()) {
            throw .invalidSyntax("'\(key)' is not a member of a PatchOp.")
        }
        var operations: [Operation] = []
        for item in items {
            guard let text = item.member("op")?.value.stringValue, let op = Op(rawValue: text.lowercased()) else {
                throw .invalidSyntax("Each operation's op must be add, replace or remove.")
            }
            for key in item.objectValue?.keys ?? [:].keys where !["op", "path", "value"].contains(key.lowercased()) {
                throw .invalidSyntax("'\(key)' is not a member of a PATCH operation.")
            }
            var path: ScimPath?
            if let member = item.member("path")?.value {
                guard let text = member.stringValue else { throw .invalidPath("path must be a string.") }
                path = try ScimPath.parse(text)
            }
            let value = item.member("value")?.value
            if op != .remove, value == nil { throw .invalidValue("A \(op.rawValue) operation needs a value.") }
            if let value, valueCount(value) > maxValuesPerOperation {
                throw .tooMany("A PATCH operation carries at most \(maxValuesPerOperation) values; split it into smaller ones.")
            }
            if op == .remove, path == nil { throw .noTarget("A remove operation needs a path.") }
            operations.append(Operation(op: op, path: path, value: value))
        }
        return operations
    }

    /// How many values an operation's value carries: a list's elements, an object's members'
    /// values, one for anything else.
    private static func valueCount(_ value: ScimJSON) -> Int {
        switch value {
        case .array(let items): items.count
        case .object(let members): members.values.reduce(0) { $0 + valueCount($1) }
        default: 1
        }
    }

    /// `resource` with `operations` applied in order (``ScimPatchTarget``).
    package static func apply(_ operations: [Operation], to resource: [String: ScimJSON]) throws(ScimError) -> [String: ScimJSON] {
        var target = ScimPatchTarget(resource)
        for operation in operations { try target.apply(operation) }
        return target.resource
    }
}
