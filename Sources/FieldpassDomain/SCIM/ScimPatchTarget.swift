/// A resource while the operations of one PATCH apply to it, one after the other
/// (``ScimPatch``): its attributes, each multi-valued one held as a ``ScimValueList`` from the
/// first operation on its elements to the end of the request, and the work done so far, which
/// ``ScimPatch/maxTouched`` bounds. So the request costs what its operations ask for plus one
/// pass over each list it works on, and a refused one stops before the work that would exceed
/// the bound.
struct ScimPatchTarget {
    private var attributes: [String: ScimJSON]
    /// The multi-valued attributes being worked on, by their key in `attributes` (which keeps a
    /// stale value under that key, so that the key's spelling is still found there).
    private var lists: [String: ScimValueList] = [:]
    /// Elements looked at, added or removed so far, and operations applied.
    private(set) var touched = 0

    init(_ resource: [String: ScimJSON]) {
        attributes = resource
    }

    /// The resource as the operations left it.
    var resource: [String: ScimJSON] {
        var resource = attributes
        for (key, list) in lists { resource[key] = .array(list.elements) }
        return resource
    }

    mutating func apply(_ operation: ScimPatch.Operation) throws(ScimError) {
        try spend(1)
        guard let path = operation.path else {
            guard case .object(let members)? = operation.value else {
                throw .invalidValue("Without a path, the value must be an object of attributes.")
            }
            for (name, value) in members.sorted(by: { $0.key < $1.key }) {
                try apply(ScimPatch.Operation(op: operation.op, path: try ScimPath.parse(name), value: value))
            }
            return
        }
        let key = attributes.keys.first { ScimJSON.sameName($0, path.attribute) } ?? path.attribute
        if let selection = path.selection {
            try select(selection, at: key, sub: path.subAttribute, operation: operation)
        } else if let sub = path.subAttribute {
            guard lists[key] == nil, attributes[key] == nil || attributes[key]?.objectValue != nil else {
                throw .invalidPath("'\(path.attribute)' has no sub-attributes.")
            }
            var object = attributes[key]?.objectValue ?? [:]
            let subKey = object.keys.first { ScimJSON.sameName($0, sub) } ?? sub
            object[subKey] = operation.op == .remove ? nil : operation.value
            set(key, to: .object(object))
        } else {
            try combine(at: key, operation)
        }
    }

    /// An operation on the whole of an attribute.
    private mutating func combine(at key: String, _ operation: ScimPatch.Operation) throws(ScimError) {
        let isList = lists[key] != nil || Self.isArray(attributes[key])
        switch (operation.op, operation.value) {
        case (.remove, .array(let removed)?) where isList:
            // Entra ID: `{"op": "Remove", "path": "members", "value": [{"value": "<id>"}]}`.
            var list = try takeList(at: key)
            for element in removed {
                let leaving = list.positions(namedBy: element)
                try spend(1 + leaving.count)
                for position in leaving { list.remove(at: position) }
            }
            store(list, at: key)
        case (.remove, _):
            set(key, to: nil)
        case (.add, let value) where isList:
            let added: [ScimJSON] = if case .array(let values)? = value { values } else { value.map { [$0] } ?? [] }
            var list = try takeList(at: key)
            try spend(added.count)
            for new in added where list.positions(namedBy: new).isEmpty { list.append(new) }
            store(list, at: key)
        case (_, .object(let members)?):
            guard case .object(var object)? = attributes[key] else { return set(key, to: operation.value) }
            for (name, member) in members {
                let memberKey = object.keys.first { ScimJSON.sameName($0, name) } ?? name
                object[memberKey] = member
            }
            set(key, to: .object(object))
        default:
            set(key, to: operation.value)
        }
    }

    /// An operation on the elements `selection` picks; a replace or add that picks none adds one.
    private mutating func select(
        _ selection: ScimFilter, at key: String, sub: String?, operation: ScimPatch.Operation
    ) throws(ScimError) {
        guard lists[key] != nil || attributes[key] == nil || Self.isArray(attributes[key]) else {
            throw .invalidPath("'\(selection.attribute)' selects elements of an attribute that is not multi-valued.")
        }
        var list = try takeList(at: key)
        let picked = try pick(selection, in: list)
        switch operation.op {
        case .remove:
            for position in picked {
                guard let sub, let element = list[position] else {
                    list.remove(at: position)
                    continue
                }
                list.replace(at: position, with: Self.set(sub, of: element, to: nil))
            }
        case .add, .replace:
            if picked.isEmpty {
                let seed = ScimJSON.object([selection.attribute: .string(selection.value)])
                list.append(sub.map { Self.set($0, of: seed, to: operation.value) } ?? Self.merge(seed, operation.value))
            }
            for position in picked {
                guard let element = list[position] else { continue }
                list.replace(
                    at: position, with: sub.map { Self.set($0, of: element, to: operation.value) } ?? Self.merge(element, operation.value))
            }
        }
        store(list, at: key)
    }

    /// The positions of the elements `selection` picks: by the list's index when it compares
    /// `value` with a string, else by a pass over every element.
    private mutating func pick(_ selection: ScimFilter, in list: ScimValueList) throws(ScimError) -> [Int] {
        if selection.attribute.lowercased() == "value", !["true", "false"].contains(selection.value.lowercased()) {
            let picked = list.positions(withValue: selection.value)
            try spend(picked.count)
            return picked
        }
        try spend(list.places)
        return list.positions { Self.selected($0, by: selection) }
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

    /// The list of a multi-valued attribute (an absent one is empty), taken out of `lists` so
    /// that changing it copies nothing; ``store(_:at:)`` puts it back.
    private mutating func takeList(at key: String) throws(ScimError) -> ScimValueList {
        if let list = lists.removeValue(forKey: key) { return list }
        let elements: [ScimJSON] = if case .array(let items)? = attributes[key] { items } else { [] }
        try spend(elements.count)
        return ScimValueList(elements)
    }

    /// A list an operation changed; one left empty unassigns its attribute (RFC 7644 §3.5.2.2).
    private mutating func store(_ list: ScimValueList, at key: String) {
        guard list.count > 0 else { return set(key, to: nil) }
        lists[key] = list
        if attributes[key] == nil { attributes[key] = .array([]) }
    }

    /// An attribute's new value; null, an empty list and an empty object unassign it.
    private mutating func set(_ key: String, to value: ScimJSON?) {
        lists[key] = nil
        attributes[key] = value == .null || value == .array([]) || value == .object([:]) ? nil : value
    }

    private mutating func spend(_ work: Int) throws(ScimError) {
        touched += work
        guard touched <= ScimPatch.maxTouched else {
            throw .tooMany(
                "A PATCH may touch at most \(ScimPatch.maxTouched) values and elements in all; split this one into smaller ones.")
        }
    }

    private static func isArray(_ value: ScimJSON?) -> Bool {
        if case .array? = value { true } else { false }
    }

    private static func set(_ sub: String, of item: ScimJSON, to value: ScimJSON?) -> ScimJSON {
        var object = item.objectValue ?? [:]
        let key = object.keys.first { ScimJSON.sameName($0, sub) } ?? sub
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
