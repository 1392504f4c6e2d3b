import Configuration
import FieldpassDomain
import Foundation

// The mappings are the domain's; reading them from the configuration is the service's.

extension ClaimMappings {
    /// Keys under `environments.<id>`:
    /// - `roles_from_idp`: `claim` (required), `map` (value → `admin`, `manager` or `worker`;
    ///   at least one), `default` (a role, optional), `sync` (`every_sign_in`, the default, or
    ///   `first_sign_in`).
    /// - `teams_from_idp`: `claim` (required), `map` (value → team name) and/or `prefix`, `sync`.
    init(_ settings: SettingsReader, prefix: [String]) throws(ConfigurationError) {
        self.init(
            roles: try Self.roles(settings, section: prefix + ["roles_from_idp"]),
            teams: try Self.teams(settings, section: prefix + ["teams_from_idp"])
        )
    }

    private static func roles(_ settings: SettingsReader, section: [String]) throws(ConfigurationError) -> RoleClaimMapping? {
        guard isPresent(settings, section: section, keys: ["claim", "map", "default", "sync"]) else { return nil }
        var map: [String: Role] = [:]
        for (value, name) in try settings.mapping(section + ["map"]) ?? [:] {
            map[value] = try role(name, key: settings.dotted(section + ["map"]), what: "'\(value)' maps to '\(name)', which")
        }
        guard !map.isEmpty else {
            throw ConfigurationError(key: settings.dotted(section + ["map"]), "must map at least one claim value to a role")
        }
        let defaultRole = try settings.optionalString(section + ["default"]).map { name throws(ConfigurationError) in
            try role(name, key: settings.dotted(section + ["default"]), what: "'\(name)'")
        }
        return RoleClaimMapping(
            claim: try settings.string(section + ["claim"]), map: map, defaultRole: defaultRole, sync: try sync(settings, section: section)
        )
    }

    private static func teams(_ settings: SettingsReader, section: [String]) throws(ConfigurationError) -> TeamClaimMapping? {
        guard isPresent(settings, section: section, keys: ["claim", "map", "prefix", "sync"]) else { return nil }
        var map: [String: String] = [:]
        for (value, name) in try settings.mapping(section + ["map"]) ?? [:] {
            guard let team = PrintableName.normalized(name) else {
                throw ConfigurationError(
                    key: settings.dotted(section + ["map"]),
                    "'\(value)' maps to '\(name)', which is not a team name (1 to 100 printable characters)"
                )
            }
            map[value] = team
        }
        let prefix = try settings.optionalString(section + ["prefix"])
        guard !map.isEmpty || prefix != nil else {
            throw ConfigurationError(key: settings.dotted(section), "needs a map, a prefix or both")
        }
        return TeamClaimMapping(
            claim: try settings.string(section + ["claim"]), map: map, prefix: prefix, sync: try sync(settings, section: section))
    }

    private static func isPresent(_ settings: SettingsReader, section: [String], keys: [String]) -> Bool {
        keys.contains { settings.isSet(section + [$0]) }
    }

    private static func role(_ name: String, key: String, what: String) throws(ConfigurationError) -> Role {
        guard let role = Role(rawValue: name.trimmingCharacters(in: .whitespaces)) else {
            throw ConfigurationError(key: key, "\(what) is not a role (admin, manager or worker)")
        }
        return role
    }

    private static func sync(_ settings: SettingsReader, section: [String]) throws(ConfigurationError) -> ClaimSync {
        let key = section + ["sync"]
        let text = try settings.string(key, default: ClaimSync.everySignIn.rawValue)
        guard let sync = ClaimSync(rawValue: text.trimmingCharacters(in: .whitespaces)) else {
            throw ConfigurationError(key: settings.dotted(key), "must be every_sign_in or first_sign_in, not '\(text)'")
        }
        return sync
    }
}
