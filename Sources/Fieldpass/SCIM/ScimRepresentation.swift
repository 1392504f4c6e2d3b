import FieldpassDomain
import Foundation

/// Resources as SCIM answers them: attributes, `id`, `meta`, and the projection that
/// `attributes` and `excludedAttributes` ask for (RFC 7644 §3.4.2.5).
enum ScimRepresentation {
    static func user(_ record: ScimUserRecord, baseURL: String) -> [String: ScimJSON] {
        var body = ScimUserResource.attributes(of: record)
        body["id"] = .string(record.user.id)
        body["meta"] = meta(
            "User", location: "\(baseURL)/Users/\(record.user.id)", created: record.user.createdAt,
            modified: record.updatedAt ?? record.user.createdAt
        )
        return body
    }

    static func group(_ record: ScimGroupRecord, baseURL: String) -> [String: ScimJSON] {
        var body = ScimGroupResource.attributes(of: record)
        body["id"] = .string(record.id)
        if !record.members.isEmpty {
            body["members"] = .array(
                record.members.map { id in
                    .object(["value": .string(id), "$ref": .string("\(baseURL)/Users/\(id)"), "type": .string("User")])
                })
        }
        body["meta"] = meta("Group", location: "\(baseURL)/Groups/\(record.id)", created: record.createdAt, modified: record.updatedAt)
        return body
    }

    private static func meta(_ resourceType: String, location: String, created: Date, modified: Date) -> ScimJSON {
        .object([
            "resourceType": .string(resourceType), "location": .string(location),
            "created": .string(timestamp(created)), "lastModified": .string(timestamp(modified)),
        ])
    }

    static func timestamp(_ date: Date) -> String {
        date.formatted(.iso8601)
    }

    /// `body` as the query's `attributes` / `excludedAttributes` ask; `id` and `schemas` always stay.
    static func project(_ body: [String: ScimJSON], query: [String: String]) -> ScimJSON {
        func names(_ key: String) -> [[String]]? {
            query.first { $0.key.lowercased() == key.lowercased() }.map { entry in
                entry.value.split(separator: ",").map { name in
                    var text = name.trimmingCharacters(in: .whitespaces)
                    for urn in ScimSchemas.resourceURNs where text.lowercased().hasPrefix(urn.lowercased() + ":") {
                        text = String(text.dropFirst(urn.count + 1))
                    }
                    return text.split(separator: ".").map { $0.lowercased() }
                }
            }
        }
        let always: Set<String> = ["id", "schemas"]
        var result = body
        if let wanted = names("attributes") {
            result = [:]
            for (key, value) in body {
                let paths = wanted.filter { $0.first == key.lowercased() }
                if always.contains(key) {
                    result[key] = value
                } else if paths.contains(where: { $0.count == 1 }) {
                    result[key] = value
                } else if !paths.isEmpty {
                    result[key] = keep(value, subs: Set(paths.compactMap { $0.dropFirst().first }))
                }
            }
        } else if let excluded = names("excludedAttributes") {
            for path in excluded where !always.contains(where: { $0.lowercased() == path.first }) {
                guard let key = result.keys.first(where: { $0.lowercased() == path.first }) else { continue }
                if path.count == 1 {
                    result[key] = nil
                } else if let sub = path.dropFirst().first {
                    result[key] = drop(result[key], sub: sub)
                }
            }
        }
        return .object(result)
    }

    private static func keep(_ value: ScimJSON, subs: Set<String>) -> ScimJSON? {
        switch value {
        case .object(let members): return .object(members.filter { subs.contains($0.key.lowercased()) })
        case .array(let items): return .array(items.compactMap { keep($0, subs: subs) })
        default: return nil
        }
    }

    private static func drop(_ value: ScimJSON?, sub: String) -> ScimJSON? {
        switch value {
        case .object(let members)?: return .object(members.filter { $0.key.lowercased() != sub })
        case .array(let items)?: return .array(items.compactMap { drop($0, sub: sub) })
        default: return value
        }
    }
}
