import FieldpassDomain

/// The keys a configuration file may contain; `*` stands for an environment id.
enum ConfigurationKeys {
    static let known: [[String]] =
        RateLimit.allCases.flatMap { [["limits", $0.rawValue, "per_minute"], ["limits", $0.rawValue, "burst"]] } + [
            ["server", "host"], ["server", "port"], ["server", "public_url"], ["server", "drain_time"], ["server", "shutdown_timeout"],
            ["server", "trusted_proxies"], ["server", "idle_timeout"],
            ["storage", "driver"], ["storage", "sqlite_path"],
            ["storage", "postgres", "url"], ["storage", "postgres", "password_env"],
            ["storage", "postgres", "max_connections"], ["storage", "postgres", "timeout"],
            ["storage", "postgres", "tls"], ["storage", "postgres", "ca_file"],
            ["tokens", "keys_dir"], ["tokens", "audience"], ["tokens", "access_token_ttl"], ["tokens", "refresh_token_ttl"],
            ["tokens", "refresh_token_max_lifetime"], ["tokens", "refresh_reuse_grace"], ["tokens", "key_publish_delay"],
            ["sessions", "ttl"], ["sessions", "sweep_interval"], ["sessions", "delivery_grace"], ["sessions", "retention"],
            ["sessions", "max_sockets_per_session"], ["sessions", "max_sockets"],
            ["console", "idle_timeout"], ["console", "lifetime"],
            ["dpop", "nonce"], ["dpop", "bind_access_tokens"], ["dpop", "proof_lifetime"], ["dpop", "clock_skew"],
            ["shared_devices", "enrollment_ttl"],
            ["badges", "lifetime"], ["badges", "pin_length"], ["badges", "max_failed_pins"],
            ["environments"],
            ["environments", "*", "id"], ["environments", "*", "email_domains"],
            ["environments", "*", "idp", "issuer"], ["environments", "*", "idp", "client_id"],
            ["environments", "*", "idp", "client_secret_env"], ["environments", "*", "idp", "scopes"],
            ["environments", "*", "idp", "token_endpoint_auth"], ["environments", "*", "idp", "id_token_algorithms"],
            ["environments", "*", "idp", "prompt"], ["environments", "*", "idp", "require_email_verified"],
            ["environments", "*", "idp", "timeout"],
            ["environments", "*", "confirm_device"], ["environments", "*", "dpop"], ["environments", "*", "badges", "managers_issue"],
            ["environments", "*", "realm_prefix"], ["environments", "*", "app_redirect_uris"],
            ["environments", "*", "roles_from_idp", "claim"], ["environments", "*", "roles_from_idp", "map"],
            ["environments", "*", "roles_from_idp", "default"], ["environments", "*", "roles_from_idp", "sync"],
            ["environments", "*", "teams_from_idp", "claim"], ["environments", "*", "teams_from_idp", "map"],
            ["environments", "*", "teams_from_idp", "prefix"], ["environments", "*", "teams_from_idp", "sync"],
            ["environments", "*", "scim", "token_env"],
            ["environments", "*", "bootstrap_admins"], ["environments", "*", "service_accounts"],
            ["environments", "*", "service_accounts", "*", "id"], ["environments", "*", "service_accounts", "*", "secret_env"],
            ["users", "unconfirmed_retention"], ["metrics", "token_env"],
            ["limits", "enabled"], ["limits", "ipv6_prefix"], ["limits", "integration_long_polls"],
            ["roles", "admin"], ["roles", "manager"], ["roles", "worker"],
        ]

    static func checkKnown(_ keys: [[String]]) throws(ConfigurationError) {
        for key in keys.sorted(by: { $0.lexicographicallyPrecedes($1) }) where !isKnown(key) {
            throw ConfigurationError(key: key.joined(separator: "."), "is not a known configuration key")
        }
    }

    private static func isKnown(_ key: [String]) -> Bool {
        known.contains { pattern in
            pattern.count == key.count && zip(pattern, key).allSatisfy { $0 == "*" || $0 == $1 }
        }
    }
}
