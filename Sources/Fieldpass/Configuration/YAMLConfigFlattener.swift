import Configuration
import FieldpassDomain
import Foundation
import Yams

/// Turns a YAML configuration file into dotted key-value pairs for swift-configuration.
///
/// swift-configuration's own YAML provider only takes lists of scalars, but `environments` is a
/// list of mappings. Each such item is keyed by its `id`, so `environments[0].idp.issuer` becomes
/// `environments.dev.idp.issuer` (and so `ENVIRONMENTS_DEV_IDP_ISSUER` overrides it), and the list
/// itself becomes the string array of ids. The `map` of `roles_from_idp` and `teams_from_idp`,
/// whose keys are an IdP's values (`Fieldpass.Admin`, group ids), stays one value: a JSON object.
struct YAMLConfigFlattener {
    /// Keys whose value is a list of mappings keyed by `id`.
    static let keyedLists: Set<String> = ["environments", "service_accounts"]
    /// Sections whose `map` is a mapping of free-form keys to plain values.
    static let freeFormMaps: Set<String> = ["roles_from_idp", "teams_from_idp"]

    func flatten(yaml: String) throws(ConfigurationError) -> [AbsoluteConfigKey: ConfigValue] {
        let root: Node?
        do {
            // Every value is kept as its text and read by its setting, so no implicit types:
            // Yams' default resolver compiles a regular expression per type, at each start.
            root = try Yams.compose(yaml: yaml, .basic)
        } catch {
            throw ConfigurationError(key: "(file)", "is not valid YAML: \(error)")
        }
        guard let root else { return [:] }
        guard let mapping = root.mapping else {
            throw ConfigurationError(key: "(file)", "the top level must be a mapping")
        }
        var values: [AbsoluteConfigKey: ConfigValue] = [:]
        try flatten(mapping: mapping, path: [], into: &values)
        return values
    }

    private func flatten(
        mapping: Node.Mapping,
        path: [String],
        into values: inout [AbsoluteConfigKey: ConfigValue]
    ) throws(ConfigurationError) {
        for (keyNode, valueNode) in mapping {
            guard let key = keyNode.string, !key.isEmpty, !key.contains(".") else {
                throw ConfigurationError(key: dotted(path), "has a key that is not a plain name")
            }
            try flatten(node: valueNode, path: path + [key], into: &values)
        }
    }

    private func flatten(
        node: Node,
        path: [String],
        into values: inout [AbsoluteConfigKey: ConfigValue]
    ) throws(ConfigurationError) {
        if path.last == "map" && Self.freeFormMaps.contains(path.dropLast().last ?? "") {
            guard let mapping = node.mapping else {
                throw ConfigurationError(key: dotted(path), "must be a mapping of values to names, like {Fieldpass.Admin: admin}")
            }
            values[AbsoluteConfigKey(path)] = ConfigValue(.string(try freeFormMap(mapping, path: path)), isSecret: false)
            return
        }
        // `key:` with nothing after it (a section left as comments only) sets nothing.
        if node.null != nil { return }
        switch node {
        case .mapping(let mapping):
            try flatten(mapping: mapping, path: path, into: &values)
        case .scalar(let scalar):
            values[AbsoluteConfigKey(path)] = ConfigValue(.string(scalar.string), isSecret: false)
        case .sequence(let sequence):
            if Self.keyedLists.contains(path.last ?? "") {
                try flattenKeyedList(sequence, path: path, into: &values)
                return
            }
            var strings: [String] = []
            for item in sequence {
                guard let scalar = item.scalar else {
                    throw ConfigurationError(key: dotted(path), "must be a list of plain values")
                }
                strings.append(scalar.string)
            }
            values[AbsoluteConfigKey(path)] = ConfigValue(.stringArray(strings), isSecret: false)
        case .alias:
            throw ConfigurationError(key: dotted(path), "uses YAML aliases, which are not supported")
        }
    }

    private func flattenKeyedList(
        _ sequence: Node.Sequence,
        path: [String],
        into values: inout [AbsoluteConfigKey: ConfigValue]
    ) throws(ConfigurationError) {
        var ids: [String] = []
        for (index, item) in sequence.enumerated() {
            let itemKey = "\(dotted(path))[\(index)]"
            guard let mapping = item.mapping else {
                throw ConfigurationError(key: itemKey, "must be a mapping with an id")
            }
            guard let id = mapping["id"]?.string, Self.isValidID(id) else {
                throw ConfigurationError(key: "\(itemKey).id", "is required: letters, digits, '-' or '_'")
            }
            guard !ids.contains(id) else {
                throw ConfigurationError(key: "\(itemKey).id", "'\(id)' is used twice")
            }
            ids.append(id)
            try flatten(mapping: mapping, path: path + [id], into: &values)
            // The id is now part of every key of the item, not a key of its own.
            values[AbsoluteConfigKey(path + [id, "id"])] = nil
        }
        values[AbsoluteConfigKey(path)] = ConfigValue(.stringArray(ids), isSecret: false)
    }

    /// A mapping of plain keys to plain values, as a JSON object.
    private func freeFormMap(_ mapping: Node.Mapping, path: [String]) throws(ConfigurationError) -> String {
        var object: [String: String] = [:]
        for (keyNode, valueNode) in mapping {
            guard let key = keyNode.scalar?.string, let value = valueNode.scalar?.string else {
                throw ConfigurationError(key: dotted(path), "must map plain values to plain values")
            }
            guard object.updateValue(value, forKey: key) == nil else {
                throw ConfigurationError(key: dotted(path), "has '\(key)' twice")
            }
        }
        do {
            return String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
        } catch {
            throw ConfigurationError(key: dotted(path), "cannot be read: \(error)")
        }
    }

    /// Ids become parts of keys and of environment variable names.
    static func isValidID(_ id: String) -> Bool {
        !id.isEmpty && id.count <= 64
            && id.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_") }
    }

    private func dotted(_ path: [String]) -> String {
        path.isEmpty ? "(file)" : path.joined(separator: ".")
    }
}
