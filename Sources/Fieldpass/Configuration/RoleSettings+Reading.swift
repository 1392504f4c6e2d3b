import FieldpassDomain

// The role table is the domain's; reading it from the configuration is the service's.

extension RoleSettings {
    init(_ settings: SettingsReader) throws(ConfigurationError) {
        var rules: [Role: [RealmRule]] = [:]
        for role in Role.allCases {
            let key = ["roles", role.rawValue]
            var parsed: [RealmRule] = []
            for text in try settings.strings(key, default: Self.defaults[role] ?? []) {
                guard let rule = RealmRule(text) else {
                    throw ConfigurationError(
                        key: settings.dotted(key),
                        "'\(text)' is not PATH=LEVEL with a realm path and read, write or manage"
                    )
                }
                parsed.append(rule)
            }
            rules[role] = parsed
        }
        self.init(rules: rules)
    }
}
