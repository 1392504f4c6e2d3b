import FieldpassDomain
import Foundation

/// An audit entry as the console's tables show it (the Audit page, a person's history): who
/// did what to whom by what a person reads, each id one click away (``ConsoleNamed``), and
/// what changed, field by field, with the ids of people, teams and devices named the same way.
struct ConsoleAuditRow: Sendable {
    /// When, to the minute.
    let at: String
    /// Who (a person, a shared device, or a part of Fieldpass: `cli`, `scim`, `idp`, …), and
    /// about whom or what.
    let actor, target: ConsoleNamed
    let action: ConsoleText
    let changes: [Change]

    /// One field of the entry: its value before and after, or the one it kept (`from` is
    /// then `nil`).
    struct Change: Sendable {
        let label: String
        let from: ConsoleNamed?
        let to: ConsoleNamed
    }

    init(_ named: NamedAuditEntry, base: String) {
        let entry = named.entry
        let fields = (entry.before ?? [:]).merging(entry.after ?? [:]) { $1 }
        let names = Names(base: base, fields: fields, fieldNames: named.fieldNames)
        at = ConsolePages.time(entry.at) ?? ""
        actor = names.acting(entry.actor, name: named.actorName)
        action = ConsoleText(entry.action)
        target = names.target(entry.target, name: named.targetName)
        // A shift's `email` is its person's as it was: the name of `user` when that is gone.
        let shown = Set(fields.keys).subtracting(fields["user"] == nil ? [] : ["email"])
        changes = shown.sorted(by: Self.order).map { key in
            let (before, after) = (entry.before?[key], entry.after?[key])
            let label = Self.labels[key] ?? key.replacingOccurrences(of: "_", with: " ")
            if let before, let after, before != after {
                return Change(label: label, from: names.value(key, before), to: names.value(key, after))
            }
            // On one side only, or the same on both: the value it had.
            return Change(label: label, from: nil, to: names.value(key, after ?? before ?? ""))
        }
    }

    /// People and what they touch first, then the rest by name.
    private static func order(_ left: String, _ right: String) -> Bool {
        let first = ["user", "team_id", "shared_device_id", "device_id"]
        switch (first.firstIndex(of: left), first.firstIndex(of: right)) {
        case (let l?, let r?): return l < r
        case (.some, nil): return true
        case (nil, .some): return false
        case (nil, nil): return left < right
        }
    }

    private static let labels = [
        "user": "person", "team_id": "team", "shared_device_id": "shared device", "device_id": "device", "pin_issued_by": "PIN made by",
        "shift_id": "shift", "badge_id": "badge", "key_thumbprint": "key", "realm_path": "realm",
    ]

    /// How an entry's ids read, from the names the store found and what the entry says itself.
    private struct Names {
        let base: String
        let fields: [String: String]
        let fieldNames: [String: String]

        func acting(_ actor: String, name: String?) -> ConsoleNamed {
            if let id = Self.id(actor, after: "user:") {
                return ConsoleNamed(name ?? "a removed person", id: actor, link: name.map { _ in person(id) })
            }
            if let id = Self.id(actor, after: "console:") {
                return ConsoleNamed("\(name ?? "a removed person") (console)", id: actor, link: name.map { _ in person(id) })
            }
            if let id = Self.id(actor, after: "shared_device:") {
                return ConsoleNamed(name ?? "a shared device", id: actor, link: name.map { _ in base + "/console/shared-devices/\(id)" })
            }
            if let id = Self.id(actor, after: "service:") { return ConsoleNamed("\(id) (service account)") }
            return ConsoleNamed(actor)
        }

        func target(_ target: String, name: String?) -> ConsoleNamed {
            if let id = Self.id(target, after: "user:") {
                return ConsoleNamed(name ?? fields["email"] ?? "a removed person", id: target, link: name.map { _ in person(id) })
            }
            if let id = Self.id(target, after: "team:") {
                return ConsoleNamed(
                    name ?? fields["name"] ?? "a removed team", id: target, link: name.map { _ in base + "/console/teams/\(id)" })
            }
            if let id = Self.id(target, after: "shared_device:") {
                let link = name.map { _ in base + "/console/shared-devices/\(id)" }
                return ConsoleNamed(name ?? fields["name"] ?? "a shared device", id: target, link: link)
            }
            if Self.id(target, after: "role_group:") != nil {
                return ConsoleNamed(name ?? fields["name"] ?? "a removed role group", id: target)
            }
            return ConsoleNamed(target)
        }

        /// The value of field `key`: a name where it holds an id, a plain text otherwise.
        func value(_ key: String, _ value: String) -> ConsoleNamed {
            let name = fieldNames[key]
            switch key {
            case "user":
                return ConsoleNamed(name ?? fields["email"] ?? "a removed person", id: value, link: name.map { _ in person(value) })
            case "team_id":
                return ConsoleNamed(name ?? "a removed team", id: value, link: name.map { _ in base + "/console/teams/\(value)" })
            case "shared_device_id":
                return ConsoleNamed(name ?? "a shared device", id: value, link: name.map { _ in base + "/console/shared-devices/\(value)" })
            case "device_id":
                return ConsoleNamed(name ?? fields["name"] ?? "a removed device", id: value)
            case "pin_issued_by":
                return acting(value, name: name)
            case "members":
                let count = value.split(separator: ",").count
                guard count > 0 else { return ConsoleNamed("nobody") }
                return ConsoleNamed(count == 1 ? "1 person" : "\(count) people", id: value)
            case "shift_id", "badge_id", "key_thumbprint", "subject", "external_id":
                return .id(value)
            default:
                return ConsoleNamed(value)
            }
        }

        private func person(_ id: String) -> String { base + "/console/people/\(id)" }

        private static func id(_ reference: String, after prefix: String) -> String? {
            reference.hasPrefix(prefix) ? String(reference.dropFirst(prefix.count)) : nil
        }
    }
}
