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

    /// At most this many operations in one request (announced in `/ServiceProviderConfig`).
    package static let maxOperations = 100
    /// At most this many values in one operation: list elements, counted through an object
    /// value's members too (announced in `/ServiceProviderConfig`).
    package static let maxValuesPerOperation = 1000

    /// The operations of a `PatchOp` body.
    package static func operations(_ body: ScimJSON) throws(ScimError) -> [Operation] {
        guard body.objectValue != nil else { throw .invalidSyntax("The body must be a JSON object.") }
        guard case .array(let schemas)? = body.member("schemas")?.value,
            schemas.contains(where: { $0.stringValue?.caseInsensitiveCompare(ScimSchemas.patchOp) == .orderedSame })
        else { throw .invalidSyntax("schemas must list \(ScimSchemas.patchOp).") }
        guard case .array(let items)? = body.member("Operations")?.value, !items.isEmpty, items.count <= maxOperations else {
            throw .invalidSyntax("Operations must be a list of 1 to \(maxOperations) operations.")
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
                throw .invalidValue("A PATCH operation carries at most \(maxValuesPerOperation) values.")
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

    /// `resource` with `operations` applied in order.
    package static func apply(_ operations: [Operation], to resource: [String: ScimJSON]) throws(ScimError) -> [String: ScimJSON] {
        var resource = resource
        for operation in operations { try apply(operation, to: &resource) }
        return resource
    }

    private static func apply(_ operation: Operation, to resource: inout [String: ScimJSON]) throws(ScimError) {
        guard let path = operation.path else {
            guard case .object(let members)? = operation.value else {
                throw .invalidValue("Without a path, the value must be an object of attributes.")
            }
            for (name, value) in members.sorted(by: { $0.key < $1.key }) {
                try apply(Operation(op: operation.op, path: try ScimPath.parse(name), value: value), to: &resource)
            }
            return
        }
        let key = resource.keys.first { $0.caseInsensitiveCompare(path.attribute) == .orderedSame } ?? path.attribute
        let current = resource[key]
        if let selection = path.selection {
            resource[key] = try select(selection, in: current, sub: path.subAttribute, operation: operation)
        } else if let sub = path.subAttribute {
            guard current == nil || current?.objectValue != nil else { throw .invalidPath("'\(path.attribute)' has no sub-attributes.") }
            var object = current?.objectValue ?? [:]
            let subKey = object.keys.first { $0.caseInsensitiveCompare(sub) == .orderedSame } ?? sub
            object[subKey] = operation.op == .remove ? nil : operation.value
            resource[key] = .object(object)
        } else {
            resource[key] = combine(current, operation)
        }
        if resource[key] == .null || resource[key] == .array([]) || resource[key] == .object([:]) { resource[key] = nil }
    }

    /// The attribute after an operation on the whole of it.
    private static func combine(_ current: ScimJSON?, _ operation: Operation) -> ScimJSON? {
        let value = operation.value
        switch (operation.op, current, value) {
        case (.remove, .array(let items)?, .array(let removed)?):
            // Entra ID: `{"op": "Remove", "path": "members", "value": [{"value": "<id>"}]}`.
            let leaving = Matches(removed)
            return .array(items.filter { !leaving.name($0) })
        case (.remove, _, _):
            return nil
        case (.add, .array(let items)?, _):
            let added: [ScimJSON] = if case .array(let values)? = value { values } else { value.map { [$0] } ?? [] }
            var present = Matches(items)
            var combined = items
            for new in added where !present.name(new) {
                combined.append(new)
                present.insert(new)
            }
            return .array(combined)
        case (_, .object(var object)?, .object(let members)?):
            for (name, member) in members {
                let key = object.keys.first { $0.caseInsensitiveCompare(name) == .orderedSame } ?? name
                object[key] = member
            }
            return .object(object)
        default:
            return value
        }
    }

    /// Elements of a multi-valued attribute, looked up by hash: one names another when they are
    /// equal, or carry the same `value` (complex items). Comparing each new element with every
    /// present one cost seconds of CPU for a few thousand members.
    private struct Matches {
        private var items: Set<ScimJSON> = []
        private var values: Set<String> = []

        init(_ elements: [ScimJSON]) {
            for element in elements { insert(element) }
        }

        mutating func insert(_ element: ScimJSON) {
            items.insert(element)
            if let value = Self.value(of: element) { values.insert(value) }
        }

        func name(_ element: ScimJSON) -> Bool {
            items.contains(element) || Self.value(of: element).map(values.contains) ?? false
        }

        private static func value(of element: ScimJSON) -> String? {
            element.member("value")?.value.stringValue
        }
    }

    /// The multi-valued attribute after an operation on the elements `selection` picks.
    private static func select(
        _ selection: ScimFilter, in current: ScimJSON?, sub: String?, operation: Operation
    ) throws(ScimError) -> ScimJSON? {
        guard current == nil || { if case .array = current { true } else { false } }() else {
            throw .invalidPath("'\(selection.attribute)' selects elements of an attribute that is not multi-valued.")
        }
        var items: [ScimJSON] = if case .array(let values)? = current { values } else { [] }
        let picked = Set(items.indices.filter { selected(items[$0], by: selection) })
        switch operation.op {
        case .remove:
            guard let sub else { return .array(items.enumerated().filter { !picked.contains($0.offset) }.map(\.element)) }
            for index in picked { items[index] = set(sub, of: items[index], to: nil) }
        case .add, .replace:
            if picked.isEmpty {
                let seed = ScimJSON.object([selection.attribute: .string(selection.value)])
                items.append(sub.map { set($0, of: seed, to: operation.value) } ?? merge(seed, operation.value))
            }
            for index in picked {
                items[index] = sub.map { set($0, of: items[index], to: operation.value) } ?? merge(items[index], operation.value)
            }
        }
        return .array(items)
    }

    private static func selected(_ item: ScimJSON, by selection: ScimFilter) -> Bool {
        guard let value = item.member(selection.attribute)?.value else { return false }
        switch value {
        case .string(let text):
            return text == selection.value
                || (selection.attribute.lowercased() == "type" && text.lowercased() == selection.value.lowercased())
        case .bool(let flag): return "\(flag)" == selection.value.lowercased()
        default: return false
        }
    }

    private static func set(_ sub: String, of item: ScimJSON, to value: ScimJSON?) -> ScimJSON {
        var object = item.objectValue ?? [:]
        let key = object.keys.first { $0.caseInsensitiveCompare(sub) == .orderedSame } ?? sub
        object[key] = value
        return .object(object)
    }

    private static func merge(_ item: ScimJSON, _ value: ScimJSON?) -> ScimJSON {
        guard case .object(let members)? = value else { return value ?? item }
        var merged = item
        for (name, member) in members { merged = set(name, of: merged, to: member) }
        return merged
    }
}
