import Foundation
import Testing
@testable import Fieldpass
@testable import FieldpassDomain
@testable import FieldpassStorage

@Suite("Configuration")
struct ConfigurationTests {
    static let minimal = """
        environments:
          - id: dev
            email_domains: [Example.com, field.example]
            idp:
              issuer: "http://127.0.0.1:9400/"
              client_id: fieldpass
              client_secret_env: DEV_SECRET
        """

    @Test func defaultsFillWhatTheFileLeavesOut() throws {
        let configuration = try FieldpassConfiguration.parse(yaml: Self.minimal, environment: ["DEV_SECRET": "s3"])

        #expect(configuration.server.host == "127.0.0.1")
        #expect(configuration.server.port == 8080)
        #expect(configuration.server.publicURL == "http://127.0.0.1:8080")
        #expect(configuration.tokens.audience == "realm-sync")
        #expect(configuration.tokens.accessTokenTTL == 900)
        #expect(configuration.sessions.ttl == 600)
        let environment = try #require(configuration.environments.first)
        #expect(environment.emailDomains == ["example.com", "field.example"])
        // The issuer stays exactly as written (ID tokens are compared to it); discovery does not double the slash.
        #expect(environment.idp.issuer == "http://127.0.0.1:9400/")
        #expect(environment.idp.discoveryURL == "http://127.0.0.1:9400/.well-known/openid-configuration")
        #expect(environment.confirmDevice)
        #expect(environment.idp.prompt == nil)
        #expect(!environment.idp.requireEmailVerified)
        #expect(configuration.tokens.refreshTokenMaxLifetime == 7_776_000)
        #expect(configuration.tokens.refreshReuseGrace == 0)
        #expect(environment.idp.clientSecret == "s3")
        #expect(environment.idp.scopes == ["openid", "email", "profile"])
        #expect(environment.idp.clientAuthentication == .clientSecretBasic)
        #expect(configuration.limits.ipv6Prefix == 64)
        #expect(configuration.limits.rules[.clientAuthentication] == RateLimitRule(perMinute: 6, burst: 10))
        #expect(configuration.metrics.token == nil, "/metrics is open unless a token is configured")
    }

    /// The README points operators at the example; it must load as it is, sections left as
    /// comments included.
    @Test func theExampleConfigurationLoads() throws {
        let example = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appending(path: "Config/fieldpass.example.yaml")
        let secrets = ["FIELDPASS_DB_PASSWORD", "ACME_IDP_CLIENT_SECRET", "ACME_BACKEND_SECRET"]
        let configuration = try FieldpassConfiguration.parse(
            yaml: try String(contentsOf: example, encoding: .utf8),
            environment: Dictionary(uniqueKeysWithValues: secrets.map { ($0, String(repeating: "s", count: 40)) })
        )
        #expect(configuration.metrics.token == nil)
        #expect(!configuration.environments.isEmpty)
    }

    @Test func environmentVariablesOverrideTheFile() throws {
        let configuration = try FieldpassConfiguration.parse(
            yaml: Self.minimal,
            environment: ["SERVER_PORT": "9999", "ENVIRONMENTS_DEV_IDP_ISSUER": "https://login.example.com", "SESSIONS_TTL": "2"]
        )

        #expect(configuration.server.port == 9999)
        #expect(configuration.sessions.ttl == 2)
        #expect(configuration.environments.first?.idp.issuer == "https://login.example.com")
        #expect(configuration.environments.first?.idp.clientSecret == nil)
    }

    @Test(arguments: [
        ("server: { port: abc }\n", "server.port"),
        ("server: { port: 70000 }\n", "server.port"),
        ("server: { prot: 80 }\n", "server.prot"),
        ("server: { public_url: \"ftp://x\" }\n", "server.public_url"),
        ("tokens: { access_token_ttl: -5 }\n", "tokens.access_token_ttl"),
        (
            "environments:\n  - id: dev\n    email_domains: [example.com]\n    idp: { issuer: \"https://i\", client_id: c, client_secret_env: S, client_secret: oops }\n",
            "environments.dev.idp.client_secret"
        ),
        (
            "environments:\n  - id: dev\n    email_domains: [example.com]\n    idp: { issuer: \"https://i\", client_id: c, client_secret_env: S, token_endpoint_auth: magic }\n",
            "environments.dev.idp.token_endpoint_auth"
        ),
        (
            "environments:\n  - id: dev\n    email_domains: [example.com]\n    idp: { issuer: \"https://i\", client_secret_env: S }\n",
            "environments.dev.idp.client_id"
        ),
        ("environments:\n  - email_domains: [example.com]\n", "environments[0].id"),
        (
            "environments:\n  - id: dev\n    email_domains: [example.com]\n    idp: { issuer: \"http://idp.example.com\", client_id: c, client_secret_env: S }\n",
            "environments.dev.idp.issuer"
        ),
        (
            "environments:\n  - id: dev\n    email_domains: [example.com]\n    confirm_device: perhaps\n    idp: { issuer: \"https://i\", client_id: c, client_secret_env: S }\n",
            "environments.dev.confirm_device"
        ),
        (
            "environments:\n  - id: dev\n    email_domains: [example.com]\n    idp: { issuer: \"https://i\", client_id: c, client_secret_env: S, prompt: \"login&x=1\" }\n",
            "environments.dev.idp.prompt"
        ),
        ("tokens: { refresh_reuse_grace: 301 }\n", "tokens.refresh_reuse_grace"),
        ("tokens: { refresh_token_max_lifetime: 60 }\n", "tokens.refresh_token_max_lifetime"),
        ("storage: { driver: mysql }\n", "storage.driver"),
        ("storage: { driver: postgres }\n", "storage.postgres.url"),
        ("storage: { driver: postgres, postgres: { url: \"postgres://u:hunter2@db/fp\" } }\n", "storage.postgres.url"),
        ("storage: { driver: postgres, postgres: { url: \"http://u@db/fp\" } }\n", "storage.postgres.url"),
        (
            "storage: { driver: postgres, postgres: { url: \"postgres://u@db/fp\", password_env: PG_UNSET } }\n",
            "storage.postgres.password_env"
        ),
        (
            "environments:\n  - id: dev\n    email_domains: [example.com]\n    realm_prefix: \"acme\"\n    idp: { issuer: \"https://i\", client_id: c, client_secret_env: S }\n",
            "environments.dev.realm_prefix"
        ),
        (
            "environments:\n  - id: dev\n    email_domains: [example.com]\n    realm_prefix: \"/acme/\"\n    idp: { issuer: \"https://i\", client_id: c, client_secret_env: S }\n",
            "environments.dev.realm_prefix"
        ),
        (
            "environments:\n  - id: dev\n    email_domains: [example.com]\n    realm_prefix: \"/ac me\"\n    idp: { issuer: \"https://i\", client_id: c, client_secret_env: S }\n",
            "environments.dev.realm_prefix"
        ),
        (
            "environments:\n  - id: dev\n    email_domains: [example.com]\n    realm_prefix: \"/acme/*\"\n    idp: { issuer: \"https://i\", client_id: c, client_secret_env: S }\n",
            "environments.dev.realm_prefix"
        ),
        (
            "environments:\n  - id: dev\n    email_domains: [example.com]\n    realm_prefix: \"/\"\n    idp: { issuer: \"https://i\", client_id: c, client_secret_env: S }\n",
            "environments.dev.realm_prefix"
        ),
        (
            "environments:\n  - id: dev\n    email_domains: [example.com]\n    realm_prefix: \"//acme\"\n    idp: { issuer: \"https://i\", client_id: c, client_secret_env: S }\n",
            "environments.dev.realm_prefix"
        ),
        (
            "environments:\n  - id: dev\n    email_domains: [example.com]\n    realm_prefix: \"/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"\n    idp: { issuer: \"https://i\", client_id: c, client_secret_env: S }\n",
            "environments.dev.realm_prefix"
        ),
        (
            "environments:\n  - id: acme\n    email_domains: [acme.test]\n    realm_prefix: \"/acme\"\n    idp: { issuer: \"https://i\", client_id: c, client_secret_env: S }\n  - id: north\n    email_domains: [north.test]\n    realm_prefix: \"/acme/north\"\n    idp: { issuer: \"https://i\", client_id: c, client_secret_env: S }\n",
            "environments.north.realm_prefix"
        ),
        (
            "environments:\n  - id: acme\n    email_domains: [acme.test]\n    realm_prefix: \"/shared\"\n    idp: { issuer: \"https://i\", client_id: c, client_secret_env: S }\n  - id: globex\n    email_domains: [globex.test]\n    realm_prefix: \"/shared\"\n    idp: { issuer: \"https://i\", client_id: c, client_secret_env: S }\n",
            "environments.acme.realm_prefix"
        ),
        // One prefix in two spellings: a case-folding sync server takes them for one.
        (
            "environments:\n  - id: acme\n    email_domains: [acme.test]\n    realm_prefix: \"/shared\"\n    idp: { issuer: \"https://i\", client_id: c, client_secret_env: S }\n  - id: globex\n    email_domains: [globex.test]\n    realm_prefix: \"/Shared\"\n    idp: { issuer: \"https://i\", client_id: c, client_secret_env: S }\n",
            "environments.acme.realm_prefix"
        ),
        // A mixed configuration: `plain` has no prefix, so its role table must not reach `/common` or `/tasks`.
        (
            "environments:\n  - id: acme\n    email_domains: [acme.test]\n    realm_prefix: \"/common\"\n    idp: { issuer: \"https://i\", client_id: c, client_secret_env: S }\n  - id: plain\n    email_domains: [plain.test]\n    idp: { issuer: \"https://i\", client_id: c, client_secret_env: S }\n",
            "roles.admin"
        ),
        (
            "environments:\n  - id: acme\n    email_domains: [acme.test]\n    realm_prefix: \"/users/acme\"\n    idp: { issuer: \"https://i\", client_id: c, client_secret_env: S }\n  - id: plain\n    email_domains: [plain.test]\n    idp: { issuer: \"https://i\", client_id: c, client_secret_env: S }\n",
            "environments.acme.realm_prefix"
        ),
        (
            "roles: { worker: [\"/*=read\"] }\nenvironments:\n  - id: acme\n    email_domains: [acme.test]\n    realm_prefix: \"/acme\"\n    idp: { issuer: \"https://i\", client_id: c, client_secret_env: S }\n  - id: plain\n    email_domains: [plain.test]\n    idp: { issuer: \"https://i\", client_id: c, client_secret_env: S }\n",
            "roles.worker"
        ),
        ("limits: { ipv6_prefix: 0 }\n", "limits.ipv6_prefix"),
        ("limits: { events: { burst: 0 } }\n", "limits.events.burst"),
        ("limits: { ipv6_prefix: 129 }\n", "limits.ipv6_prefix"),
        ("limits: { ipv6_prefix: /64 }\n", "limits.ipv6_prefix"),
        ("limits: { client_authentication: { burst: 0 } }\n", "limits.client_authentication.burst"),
        ("limits: { client_authentication: { per_minute: many } }\n", "limits.client_authentication.per_minute"),
        ("metrics: { token_env: METRICS_UNSET }\n", "metrics.token_env"),
        ("metrics: { token: hunter2 }\n", "metrics.token"),
        ("storage: { driver: postgres, postgres: { url: \"postgres://u@db/fp\", tls: verify-ca } }\n", "storage.postgres.tls"),
        (
            "storage: { driver: postgres, postgres: { url: \"postgres://u@db/fp\", ca_file: /no/such/ca.pem } }\n",
            "storage.postgres.ca_file"
        ),
        ("storage: { driver: postgres, postgres: { url: \"postgres://u@db/fp\", ca_file: /tmp } }\n", "storage.postgres.ca_file"),
        (
            "storage: { driver: postgres, postgres: { url: \"postgres://u@db/fp\", tls: require, ca_file: /no/such/ca.pem } }\n",
            "storage.postgres.ca_file"
        ),
    ])
    func badValuesStopStartUpNamingTheKey(yaml: String, key: String) {
        let full = yaml.contains("environments:") ? yaml : yaml + Self.minimal
        let error = #expect(throws: ConfigurationError.self) {
            try FieldpassConfiguration.parse(yaml: full, environment: [:])
        }
        #expect(error?.key == key, "\(String(describing: error))")
    }

    @Test func twoEnvironmentsCannotShareOneScimToken() {
        let yaml = """
            environments:
              - id: acme
                email_domains: [acme.test]
                scim: { token_env: ACME_SCIM }
                idp: { issuer: "https://i", client_id: c, client_secret_env: S }
              - id: globex
                email_domains: [globex.test]
                scim: { token_env: GLOBEX_SCIM }
                idp: { issuer: "https://i", client_id: c, client_secret_env: S }
            """
        let token = String(repeating: "t", count: 40)
        let error = #expect(throws: ConfigurationError.self) {
            try FieldpassConfiguration.parse(yaml: yaml, environment: ["ACME_SCIM": token, "GLOBEX_SCIM": token])
        }
        #expect(error?.key == "environments.globex.scim.token_env")
        #expect(error.map { "\($0)".contains("environments.acme.scim.token_env") } == true, "\(String(describing: error))")
        #expect(throws: Never.self) {
            try FieldpassConfiguration.parse(yaml: yaml, environment: ["ACME_SCIM": token, "GLOBEX_SCIM": token + "g"])
        }
    }

    @Test("a short or empty metrics token stops start-up naming the key", arguments: ["", "abc123", String(repeating: "x", count: 31)])
    func shortMetricsTokens(token: String) {
        let error = #expect(throws: ConfigurationError.self) {
            try FieldpassConfiguration.parse(yaml: "metrics: { token_env: SCRAPE }\n" + Self.minimal, environment: ["SCRAPE": token])
        }
        #expect(error?.key == "metrics.token_env")
        #expect(token.isEmpty || error?.description.contains(token) == false, "the message must not show the token")
    }

    @Test func aLongEnoughMetricsTokenIsRead() throws {
        let token = String(repeating: "t", count: 32)
        let configuration = try FieldpassConfiguration.parse(
            yaml: "metrics: { token_env: SCRAPE }\n" + Self.minimal, environment: ["SCRAPE": token])
        #expect(configuration.metrics.token == token)
        #expect(
            try FieldpassConfiguration.parse(yaml: "limits: { ipv6_prefix: 48 }\n" + Self.minimal, environment: [:]).limits.ipv6Prefix == 48
        )
    }

    @Test("a service account secret under 32 characters stops start-up naming the account")
    func shortServiceAccountSecrets() throws {
        let yaml =
            Self.minimal + """

                    service_accounts:
                      - id: backend
                        secret_env: BACKEND_SECRET
                """
        let short = String(repeating: "s", count: 31)
        let error = #expect(throws: ConfigurationError.self) {
            try FieldpassConfiguration.parse(yaml: yaml, environment: ["BACKEND_SECRET": short])
        }
        #expect(error?.key == "environments.dev.service_accounts.backend.secret_env")
        #expect(
            error?.description.contains("'backend'") == true && error?.description.contains(short) == false, "\(String(describing: error))")
        let configuration = try FieldpassConfiguration.parse(yaml: yaml, environment: ["BACKEND_SECRET": short + "s"])
        #expect(configuration.environments.first?.serviceAccounts.first?.secret == short + "s")
        let unset = try FieldpassConfiguration.parse(yaml: yaml, environment: [:])
        #expect(unset.environments.first?.serviceAccounts.first?.secret == nil, "an unset secret leaves the account unable to sign in")
    }

    @Test func aDomainBelongsToOneEnvironmentOnly() {
        let yaml =
            Self.minimal + """

                  - id: other
                    email_domains: [example.com]
                    idp: { issuer: "https://i", client_id: c, client_secret_env: S }
                """
        #expect(throws: ConfigurationError(key: "environments.other.email_domains", "'example.com' already belongs to environment 'dev'")) {
            try FieldpassConfiguration.parse(yaml: yaml, environment: [:])
        }
    }

    @Test(arguments: ["http://127.0.0.1:9400", "http://localhost:9400/", "http://[::1]:9400", "https://login.example.com/tenant/"])
    func plainHTTPIssuersAreAcceptedOnLoopbackOnly(issuer: String) throws {
        let configuration = try FieldpassConfiguration.parse(
            yaml: Self.minimal, environment: ["ENVIRONMENTS_DEV_IDP_ISSUER": issuer]
        )
        #expect(configuration.environments.first?.idp.issuer == issuer)
    }

    @Test func onlyAdminsMakeBadgePinsUnlessAnEnvironmentLetsItsManagers() throws {
        let quiet = try FieldpassConfiguration.parse(yaml: Self.minimal, environment: ["DEV_SECRET": "s3"])
        #expect(!quiet.badges.managersIssue(in: "dev") && quiet.badges.managersIssueIn.isEmpty)
        let yaml = Self.minimal + "\n    badges: { managers_issue: true }\nbadges: { pin_length: 6 }\n"
        let opted = try FieldpassConfiguration.parse(yaml: yaml, environment: ["DEV_SECRET": "s3"])
        #expect(opted.badges.managersIssue(in: "dev") && !opted.badges.managersIssue(in: "other"))
        #expect(opted.badges.pinLength == 6)
        #expect(throws: ConfigurationError.self) {
            try FieldpassConfiguration.parse(
                yaml: Self.minimal + "\n    badges: { managers_issue: perhaps }\n", environment: ["DEV_SECRET": "s3"])
        }
    }

    @Test func trustSettingsAreRead() throws {
        let configuration = try FieldpassConfiguration.parse(
            yaml: Self.minimal,
            environment: [
                "ENVIRONMENTS_DEV_CONFIRM_DEVICE": "false", "ENVIRONMENTS_DEV_IDP_PROMPT": "login",
                "ENVIRONMENTS_DEV_IDP_REQUIRE_EMAIL_VERIFIED": "true", "TOKENS_REFRESH_REUSE_GRACE": "30",
                "TOKENS_REFRESH_TOKEN_MAX_LIFETIME": "86400",
            ]
        )
        let environment = try #require(configuration.environments.first)
        #expect(!environment.confirmDevice)
        #expect(environment.idp.prompt == "login")
        #expect(environment.idp.requireEmailVerified)
        #expect(configuration.tokens.refreshReuseGrace == 30)
        #expect(configuration.tokens.refreshTokenMaxLifetime == 86400)
    }

    @Test func postgresSettingsTakeThePasswordFromTheEnvironmentOnly() throws {
        let yaml = "storage: { driver: postgres, postgres: { url: \"postgres://fp@db.example:6432/fieldpass\", password_env: PG_PASS } }\n"
        let configuration = try FieldpassConfiguration.parse(yaml: yaml + Self.minimal, environment: ["PG_PASS": "pw", "DEV_SECRET": "s"])
        #expect(configuration.storage.driver == .postgres)
        let postgres = try #require(configuration.storage.postgres)
        #expect([postgres.host, postgres.database, postgres.username] == ["db.example", "fieldpass", "fp"])
        #expect(postgres.port == 6432)
        #expect(postgres.password == "pw")
        #expect(postgres.timeout == 5)
        #expect(try FieldpassConfiguration.parse(yaml: Self.minimal, environment: [:]).storage.driver == .sqlite)
    }

    @Test(arguments: [
        ("db.example", "verify-full"), ("127.0.0.1", "disable"), ("127.8.9.10", "disable"), ("localhost", "disable"),
        ("[::1]", "disable"), ("127.example.com", "verify-full"),
    ])
    func postgresTLSIsVerifiedUnlessTheServerIsLoopback(host: String, mode: String) throws {
        let yaml = "storage: { driver: postgres, postgres: { url: \"postgres://fp@\(host)/fieldpass\" } }\n"
        let configuration = try FieldpassConfiguration.parse(yaml: yaml + Self.minimal, environment: [:])
        let tls = try #require(configuration.storage.postgres?.tls)
        #expect(tls.name == mode)
        if mode == "verify-full" { #expect(tls == .verifyFull(trustRoots: nil)) }
    }

    @Test func aCAFileIsReadAtStartUpAndMustHoldACertificate() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fieldpass-ca-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let ca = folder.appendingPathComponent("ca.pem")
        let notACertificate = folder.appendingPathComponent("empty.pem")
        try Data(Self.testCertificate.utf8).write(to: ca)
        try Data("not a certificate\n".utf8).write(to: notACertificate)
        func parse(_ caFile: URL, tls: String = "verify-full") throws -> PostgresTLS? {
            let yaml =
                "storage: { driver: postgres, postgres: { url: \"postgres://fp@127.0.0.1/f\", tls: \(tls), ca_file: \"\(caFile.path)\" } }\n"
            return try FieldpassConfiguration.parse(yaml: yaml + Self.minimal, environment: [:]).storage.postgres?.tls
        }

        guard case .verifyFull(let roots) = try parse(ca) else {
            Issue.record("not verify-full")
            return
        }

        #expect(roots?.count == 1)
        #expect(throws: ConfigurationError(key: "storage.postgres.ca_file", "'\(notACertificate.path)' holds no PEM certificate")) {
            try parse(notACertificate)
        }
        #expect(throws: ConfigurationError(key: "storage.postgres.tls", "must be disable, require or verify-full, not 'prefer'")) {
            try parse(ca, tls: "prefer")
        }
    }

    /// A self-signed certificate whose private key was thrown away: something to trust, nothing to sign with.
    static let testCertificate = """
        -----BEGIN CERTIFICATE-----
        MIIBqDCCAU+gAwIBAgIURTQ/rhMHQoqhFm0M+UYnmE5O2L0wCgYIKoZIzj0EAwIw
        KjEoMCYGA1UEAwwfRmllbGRwYXNzIGNvbmZpZ3VyYXRpb24gdGVzdCBDQTAeFw0y
        NjExMjMxOTM3MzJaFw0zNjExMjAxOTM3MzJaMCoxKDAmBgNVBAMMH0ZpZWxkcGFz
        cyBjb25maWd1cmF0aW9uIHRlc3QgQ0EwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNC
        AAR3gQ5VSk/Fx/TYbFcUTzMIIgan04kphZfmQpnUz9SsTDCGe/+x095jiHF8SFwg
        mo3QxSVdUIwiEolhKJtK1YAdo1MwUTAdBgNVHQ4EFgQUnCbC8bA1tGCxCzBPjX4w
        wS3dU5gwHwYDVR0jBBgwFoAUnCbC8bA1tGCxCzBPjX4wwS3dU5gwDwYDVR0TAQH/
        BAUwAwEB/zAKBggqhkjOPQQDAgNHADBEAiBHiD+c7wJdsbk0y2vEv+FwtBoE7bb9
        WrLo3njX+MXDmgIgVhRbGiTLWkdeZIfka5Fofdp9kzdLBmy0v5k+stNIlkE=
        -----END CERTIFICATE-----

        """

    @Test func brokenYAMLIsReported() {
        #expect(throws: ConfigurationError.self) {
            try FieldpassConfiguration.parse(yaml: "server: [unclosed", environment: [:])
        }
    }

    @Test func anEmptyFileLacksEnvironments() {
        #expect(throws: ConfigurationError(key: "environments", "is required (a list)")) {
            try FieldpassConfiguration.parse(yaml: "", environment: [:])
        }
    }

    @Test func configuredRealmRulesReplaceTheDefaults() throws {
        let yaml = Self.minimal + "\nroles:\n  worker: [\"/common=read\", \"/users/{user_id}=manage\"]\n"
        let configuration = try FieldpassConfiguration.parse(yaml: yaml, environment: [:])
        let worker = UserRecord(id: "u1", environmentID: "dev", email: "a@example.com", role: .worker, createdAt: Date(), disabled: false)
        let realms = RealmPolicy(roles: configuration.roles).realms(for: AccessFacts(user: worker, teams: ["t1"], grants: [:]))
        #expect(realms == ["/common": .read, "/users/u1": .manage])
    }

    @Test(arguments: ["/common", "common=write", "/common=owner", "/a//b=read", "/a/../b=read", "=write"])
    func badRealmRulesStopStartUp(rule: String) {
        let yaml = Self.minimal + "\nroles:\n  worker: [\"\(rule)\"]\n"
        let error = #expect(throws: ConfigurationError.self) {
            try FieldpassConfiguration.parse(yaml: yaml, environment: [:])
        }
        #expect(error?.key == "roles.worker")
    }
}
