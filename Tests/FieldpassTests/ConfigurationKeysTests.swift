import Foundation
import Testing

@testable import Fieldpass
@testable import FieldpassDomain
import FieldpassStorage

/// A key is accepted exactly when a settings type reads it: these check that every key the
/// example file and the documentation name is one, and that one no type reads stops start-up.
@Suite("Configuration keys")
struct ConfigurationKeysTests {
    static let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let secrets = [
        "FIELDPASS_DB_PASSWORD", "ACME_IDP_CLIENT_SECRET", "ACME_BACKEND_SECRET", "ACME_SCIM_TOKEN", "FIELDPASS_METRICS_TOKEN",
    ]
    static let environment = Dictionary(uniqueKeysWithValues: secrets.map { ($0, String(repeating: "s", count: 40)) })

    /// The example file with each commented `# key: value` line made a key, on PostgreSQL
    /// without TLS (so the file's CA path need not exist): every key the file names, set.
    static func exampleWithEveryKey() throws -> String {
        let text = try String(contentsOf: root.appending(path: "Config/fieldpass.example.yaml"), encoding: .utf8)
        let commentedKey = /^(\s*)# ([a-z_]+:(\s.*)?)$/
        return text.split(separator: "\n", omittingEmptySubsequences: false).compactMap { line -> String? in
            let line = String(line)
            if line.contains("ca_file:") { return nil }
            guard let match = line.wholeMatch(of: commentedKey) else { return line }
            return "\(match.1)\(match.2)"
        }
        .joined(separator: "\n")
        .replacingOccurrences(of: "driver: sqlite", with: "driver: postgres")
        .replacingOccurrences(of: "tls: verify-full", with: "tls: disable")
    }

    /// Every `section.key` the documentation names in backticks, with `<id>` as the example's
    /// environment, `<role>` as each role and `*` as each rate limit's name.
    static func documentedKeys() throws -> Set<[String]> {
        let sections = "server|storage|tokens|sessions|users|console|dpop|shared_devices|badges|limits|metrics|roles|environments"
        let key = try Regex("`((?:\(sections))\\.[a-z_.<>*]+)`")
        let documents =
            try FileManager.default.contentsOfDirectory(atPath: root.appending(path: "Docs").path)
            .filter { $0.hasSuffix(".md") }.map { "Docs/\($0)" } + ["README.md"]
        var keys: Set<[String]> = []
        for document in documents {
            let text = try String(contentsOf: root.appending(path: document), encoding: .utf8)
            for match in text.matches(of: key) {
                let named = String(match.output[1].substring ?? "").split(separator: ".").map(String.init)
                for expanded in expand(named) { keys.insert(expanded) }
            }
        }
        return keys
    }

    private static func expand(_ key: [String]) -> [[String]] {
        guard let index = key.firstIndex(where: { $0 == "*" || $0.hasPrefix("<") }) else {
            return [key.map { $0 == "dev" ? "acme" : $0 }]
        }
        let names: [String] =
            switch (key[0], key[index]) {
            case ("environments", _): ["acme"]
            case ("roles", _): Role.allCases.map(\.rawValue)
            case ("limits", _) where index == key.count - 1: RateLimit.allCases.map(\.rawValue)
            default: []
            }
        return names.flatMap { name in expand(Array(key[..<index]) + [name] + Array(key[(index + 1)...])) }
    }

    @Test func everyKeyTheExampleNamesIsAccepted() throws {
        let (configuration, _) = try FieldpassConfiguration.parseNotingReads(
            yaml: try Self.exampleWithEveryKey(), environment: Self.environment)
        #expect(configuration.storage.driver == .postgres)
        #expect(configuration.metrics.token != nil)
        #expect(configuration.environments.first?.scim != nil)
        #expect(configuration.environments.first?.realmPrefix == "/acme")
    }

    @Test func everyKeyTheDocumentationNamesIsRead() throws {
        let (_, read) = try FieldpassConfiguration.parseNotingReads(yaml: try Self.exampleWithEveryKey(), environment: Self.environment)
        let documented = try Self.documentedKeys()
        #expect(documented.count > 50, "the documentation names its keys in backticks")
        for key in documented.sorted(by: { $0.lexicographicallyPrecedes($1) }) where key.count > 1 || key == ["environments"] {
            let isLimitSection = key.count == 2 && key[0] == "limits" && RateLimit(rawValue: key[1]) != nil
            let isRead = read.contains(key) || (isLimitSection && read.contains(key + ["burst"]))
            #expect(isRead, "\(key.joined(separator: ".")) is documented but no settings type reads it")
        }
    }

    @Test(arguments: [
        ("server:\n  prot: 80\n", "server.prot"),
        ("badges:\n  pin_lenght: 8\n", "badges.pin_lenght"),
        ("storage:\n  postgres:\n    url: postgres://fieldpass@db.example:5432/fieldpass\n", "storage.postgres.url"),
        (
            "environments:\n  - id: dev\n    email_domains: [example.com]\n    idp: {issuer: \"http://127.0.0.1:9400/\", client_id: f, client_secret_env: S, timout: 3}\n",
            "environments.dev.idp.timout"
        ),
    ])
    func aKeyNoSettingsTypeReadsStopsStartUp(yaml: String, key: String) {
        let minimal =
            "environments:\n  - id: dev\n    email_domains: [example.com]\n    idp: {issuer: \"http://127.0.0.1:9400/\", client_id: f, client_secret_env: S}\n"
        let file = yaml.hasPrefix("environments:") ? yaml : yaml + minimal
        #expect(throws: ConfigurationError(key: key, "is not a known configuration key")) {
            try FieldpassConfiguration.parse(yaml: file, environment: [:])
        }
    }

    @Test func theBadgeAndShiftKeysTakeEffect() throws {
        let yaml = try Self.exampleWithEveryKey()
            .replacingOccurrences(of: "pin_length: 8", with: "pin_length: 12")
            .replacingOccurrences(of: "max_failed_pins: 5", with: "max_failed_pins: 3")
            .replacingOccurrences(of: "lifetime: 31536000", with: "lifetime: 86400")
            .replacingOccurrences(of: "max_shift: 43200", with: "max_shift: 3600")
            .replacingOccurrences(of: "idle_timeout: 1800", with: "idle_timeout: 600")
        let configuration = try FieldpassConfiguration.parse(yaml: yaml, environment: Self.environment)
        #expect(configuration.badges.pinLength == 12)
        #expect(configuration.badges.maxFailedPins == 3)
        #expect(configuration.badges.lifetime == 86_400)
        #expect(configuration.sharedDevices.shiftLimits.maxShift == 3_600)
        #expect(configuration.sharedDevices.shiftLimits.idleTimeout == 600)
    }
}
