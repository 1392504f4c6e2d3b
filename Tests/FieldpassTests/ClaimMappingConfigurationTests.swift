import Foundation
import Testing
@testable import Fieldpass
@testable import FieldpassDomain

@Suite("Roles and teams from the IdP: configuration")
struct ClaimMappingConfigurationTests {
    static func yaml(_ mappings: String) -> String {
        """
        environments:
          - id: dev
            email_domains: [example.com]
            idp: { issuer: "https://i", client_id: c, client_secret_env: S }
        \(mappings)
        """
    }

    @Test func bothMappingsAreRead() throws {
        let configuration = try FieldpassConfiguration.parse(
            yaml: Self.yaml(
                """
                    roles_from_idp:
                      claim: roles
                      map: {Fieldpass.Admin: admin, "Fieldpass.Manager": manager}
                      default: worker
                      sync: first_sign_in
                    teams_from_idp:
                      claim: groups
                      map: {"6f1c0e2a-aaaa": North}
                      prefix: "crew-"
                """),
            environment: [:]
        )
        let mappings = try #require(configuration.environments.first).claimMappings
        #expect(
            mappings.roles
                == RoleClaimMapping(
                    claim: "roles", map: ["Fieldpass.Admin": .admin, "Fieldpass.Manager": .manager], defaultRole: .worker,
                    sync: .firstSignIn
                ))
        #expect(mappings.teams == TeamClaimMapping(claim: "groups", map: ["6f1c0e2a-aaaa": "North"], prefix: "crew-", sync: .everySignIn))
    }

    @Test func noMappingsByDefaultAndEnvironmentVariablesMayAddOne() throws {
        #expect(
            try FieldpassConfiguration.parse(yaml: Self.yaml(""), environment: [:]).environments.first?.claimMappings == ClaimMappings.none)
        let configuration = try FieldpassConfiguration.parse(
            yaml: Self.yaml(""),
            environment: [
                "ENVIRONMENTS_DEV_ROLES_FROM_IDP_CLAIM": "groups",
                "ENVIRONMENTS_DEV_ROLES_FROM_IDP_MAP": #"{"crew-leads": "manager"}"#,
            ]
        )
        #expect(configuration.environments.first?.claimMappings.roles?.map == ["crew-leads": .manager])
    }

    @Test(arguments: [
        ("    roles_from_idp: { claim: roles, map: {Fieldpass.Boss: boss} }", "environments.dev.roles_from_idp.map", "'boss'"),
        ("    roles_from_idp: { claim: roles, map: {A: admin}, default: chief }", "environments.dev.roles_from_idp.default", "'chief'"),
        ("    roles_from_idp: { claim: roles, map: {A: admin}, sync: always }", "environments.dev.roles_from_idp.sync", "every_sign_in"),
        ("    roles_from_idp: { claim: \"\", map: {A: admin} }", "environments.dev.roles_from_idp.claim", "empty"),
        ("    roles_from_idp: { map: {A: admin} }", "environments.dev.roles_from_idp.claim", "required"),
        ("    roles_from_idp: { claim: roles }", "environments.dev.roles_from_idp.map", "at least one"),
        ("    roles_from_idp: { claim: roles, map: [admin] }", "environments.dev.roles_from_idp.map", "mapping"),
        ("    teams_from_idp: { claim: groups }", "environments.dev.teams_from_idp", "map, a prefix"),
        ("    teams_from_idp: { claim: groups, prefix: crew-, sync: nightly }", "environments.dev.teams_from_idp.sync", "first_sign_in"),
        ("    teams_from_idp: { claim: \" \", prefix: crew- }", "environments.dev.teams_from_idp.claim", "empty"),
        ("    teams_from_idp: { claim: groups, map: {g: \" \"} }", "environments.dev.teams_from_idp.map", "team name"),
        ("    teams_from_idp: { claim: groups, prefix: crew-, filter: x }", "environments.dev.teams_from_idp.filter", "not a known"),
    ])
    func badMappingsStopStartUpNamingTheKey(mapping: String, key: String, problem: String) {
        let error = #expect(throws: ConfigurationError.self) {
            try FieldpassConfiguration.parse(yaml: Self.yaml(mapping), environment: [:])
        }
        #expect(error?.key == key, "\(String(describing: error))")
        #expect(error?.problem.contains(problem) == true, "\(String(describing: error))")
    }
}
