import Foundation
import Testing
@testable import FieldpassDomain

@Suite("SCIM rules")
struct ScimRulesTests {
    private func json(_ text: String) throws -> ScimJSON {
        try JSONDecoder().decode(ScimJSON.self, from: Data(text.utf8))
    }

    @Test func filtersCompareOneAttributeWithEq() throws {
        let filter = try ScimFilter.parse(#"USERNAME Eq "ada@example.com""#, attributes: ScimUserResource.filterable)
        #expect(filter == ScimFilter(attribute: "userName", value: "ada@example.com"))
        let urn = try ScimFilter.parse(
            #"urn:ietf:params:scim:schemas:core:2.0:User:externalId eq "a\"b""#, attributes: ScimUserResource.filterable)
        #expect(urn == ScimFilter(attribute: "externalId", value: #"a"b"#))
    }

    @Test(arguments: [#"userName co "a""#, #"title eq "x""#, "userName eq", #"userName eq "a" and id eq "b""#, #"userName eq "a"#])
    func otherFiltersAreRefused(_ text: String) {
        #expect(throws: ScimError.self) { try ScimFilter.parse(text, attributes: ScimUserResource.filterable) }
        do {
            _ = try ScimFilter.parse(text, attributes: ScimUserResource.filterable)
        } catch {
            #expect(error.scimType == "invalidFilter")
        }
    }

    /// Byte by byte for ASCII names, by Foundation for others.
    @Test func attributeNamesCompareInAnyCase() {
        #expect(ScimJSON.sameName("userName", "USERNAME") && ScimJSON.sameName("$ref", "$REF"))
        #expect(!ScimJSON.sameName("value", "valve") && !ScimJSON.sameName("value", "values") && !ScimJSON.sameName("@", "`"))
        #expect(ScimJSON.sameName("Größe", "GRÖSSE") == ("Größe".caseInsensitiveCompare("GRÖSSE") == .orderedSame))
        #expect(ScimJSON.object(["Value": .string("a")]).member("value")?.value == .string("a"))
    }

    @Test func pathsNameAttributesSubAttributesAndSelections() throws {
        #expect(try ScimPath.parse("name.givenName") == ScimPath(attribute: "name", subAttribute: "givenName"))
        #expect(
            try ScimPath.parse(#"emails[type eq "work"].value"#)
                == ScimPath(attribute: "emails", selection: ScimFilter(attribute: "type", value: "work"), subAttribute: "value")
        )
        #expect(try ScimPath.parse("urn:ietf:params:scim:schemas:core:2.0:User:active") == ScimPath(attribute: "active"))
        #expect(throws: ScimError.self) { try ScimPath.parse("urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager") }
        #expect(throws: ScimError.self) { try ScimPath.parse("emails[type eq \"work\"") }
    }

    @Test func entraPatchesApply() throws {
        let body = try json(
            """
            {"schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], "Operations": [
              {"op": "Replace", "path": "active", "value": "False"},
              {"op": "Replace", "path": "name.givenName", "value": "Ada"},
              {"op": "Replace", "path": "emails[type eq \\"work\\"].value", "value": "ada@example.com"},
              {"op": "Add", "value": {"displayName": "Ada F", "externalId": "oid-1"}}
            ]}
            """)
        let operations = try ScimPatch.operations(body)
        #expect(operations.map(\.op) == [.replace, .replace, .replace, .add])
        let patched = try ScimPatch.apply(
            operations, to: ["schemas": .array([.string(ScimSchemas.user)]), "userName": .string("ada@example.com")])
        let resource = try ScimUserResource.parse(.object(patched))
        #expect(resource.active == false)
        #expect(resource.profile.name == ["givenName": "Ada"])
        #expect(resource.profile.emails == [ScimEmail(value: "ada@example.com", type: "work")])
        #expect(resource.profile.displayName == "Ada F")
        #expect(resource.profile.externalID == "oid-1")
    }

    @Test func membersAreAddedAndRemovedBySelectionOrByValue() throws {
        let group: [String: ScimJSON] = [
            "schemas": .array([.string(ScimSchemas.group)]), "displayName": .string("North"),
            "members": .array([.object(["value": .string("a")]), .object(["value": .string("b")])]),
        ]
        let operations = try ScimPatch.operations(
            try json(
                """
                {"schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], "Operations": [
                  {"op": "add", "path": "members", "value": [{"value": "c"}, {"value": "a"}]},
                  {"op": "remove", "path": "members[value eq \\"a\\"]"},
                  {"op": "Remove", "path": "members", "value": [{"value": "b"}]}
                ]}
                """))
        let resource = try ScimGroupResource.parse(.object(try ScimPatch.apply(operations, to: group)))
        #expect(resource.members == ["c"])
        #expect(resource.displayName == "North")
    }

    /// The review's request: two adds of thousands of members each, compared by hash.
    @Test func largeMemberAddsAreComparedByHash() throws {
        let group: [String: ScimJSON] = ["schemas": .array([.string(ScimSchemas.group)]), "displayName": .string("North")]
        let batches = (0..<2).map { batch in ScimJSON.array((0..<1000).map { .object(["value": .string("u\(batch)-\($0 % 900)")]) }) }
        let operations = batches.map { ScimPatch.Operation(op: .add, path: try? ScimPath.parse("members"), value: $0) }
        let resource = try ScimGroupResource.parse(.object(try ScimPatch.apply(operations + operations, to: group)))
        #expect(resource.members.count == 1800)
        #expect(resource.members.prefix(2) == ["u0-0", "u0-1"])
    }

    @Test func patchesAreBoundedInOperationsAndValues() throws {
        let member = #"{"op": "add", "path": "members", "value": [{"value": "a"}]}"#
        let tooMany =
            #"{"schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], "Operations": [\#(Array(repeating: member, count: ScimPatch.maxOperations + 1).joined(separator: ","))]}"#
        #expect(throws: ScimError.self) { try ScimPatch.operations(try json(tooMany)) }
        let values = Array(repeating: #"{"value": "a"}"#, count: ScimPatch.maxValuesPerOperation + 1).joined(separator: ",")
        let tooLarge =
            #"{"schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], "Operations": [{"op": "add", "path": "members", "value": [\#(values)]}]}"#
        #expect(throws: ScimError.self) { try ScimPatch.operations(try json(tooLarge)) }
        let inObject =
            #"{"schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], "Operations": [{"op": "replace", "value": {"members": [\#(values)]}}]}"#
        #expect(throws: ScimError.self) { try ScimPatch.operations(try json(inObject)) }
        let atTheLimit = Array(repeating: #"{"value": "a"}"#, count: ScimPatch.maxValuesPerOperation).joined(separator: ",")
        let allowed =
            #"{"schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], "Operations": [{"op": "add", "path": "members", "value": [\#(atTheLimit)]}]}"#
        #expect(try ScimPatch.operations(try json(allowed)).count == 1)
    }

    @Test(arguments: [
        #"{"schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], "Operations": [{"op": "move", "path": "active"}]}"#,
        #"{"schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], "Operations": [{"op": "remove"}]}"#,
        #"{"schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], "Operations": []}"#,
        #"{"Operations": [{"op": "add", "path": "active", "value": true}]}"#,
        #"{"schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], "Operations": [{"op": "add", "path": "active"}]}"#,
    ])
    func malformedPatchesAreRefused(_ text: String) throws {
        let body = try json(text)
        #expect(throws: ScimError.self) { try ScimPatch.operations(body) }
    }

    @Test func usersAreCheckedAgainstThePublishedSchema() throws {
        let base = #""schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"], "userName": "a@example.com""#
        #expect(try ScimUserResource.parse(json("{\(base), \"active\": \"TRUE\"}")).active == true)
        #expect(try ScimUserResource.parse(json("{\(base)}")).active == nil)
        for extra in [#""title": "Boss""#, #""name": {"nickname": "x"}"#, #""emails": [{"value": "a@x", "kind": "work"}]"#] {
            do {
                _ = try ScimUserResource.parse(json("{\(base), \(extra)}"))
                Issue.record("accepted \(extra)")
            } catch let error as ScimError {
                #expect(error.scimType == "invalidSyntax")
            }
        }
        for bad in [
            #""active": "yes""#, #""emails": [{"value": "a@x", "primary": true}, {"value": "b@x", "primary": true}]"#, #""displayName": 3"#,
        ] {
            do {
                _ = try ScimUserResource.parse(json("{\(base), \(bad)}"))
                Issue.record("accepted \(bad)")
            } catch let error as ScimError {
                #expect(error.scimType == "invalidValue")
            }
        }
        #expect(throws: ScimError.self) { try ScimUserResource.parse(json(#"{"userName": "a@example.com"}"#)) }
        #expect(throws: ScimError.self) {
            try ScimUserResource.parse(json(#"{"schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"]}"#))
        }
    }

    @Test func groupsMapToTeamsOrToRoles() {
        let mappings = ClaimMappings(
            roles: RoleClaimMapping(
                claim: "roles", map: ["Leads": .manager, "oid-admins": .admin], defaultRole: nil, sync: .everySignIn
            ))
        #expect(ScimGroupRules.isRoleGroup(displayName: "Leads", externalID: nil, mappings: mappings))
        #expect(ScimGroupRules.isRoleGroup(displayName: "Admins", externalID: "oid-admins", mappings: mappings))
        #expect(!ScimGroupRules.isRoleGroup(displayName: "North", externalID: "oid-north", mappings: mappings))
        #expect(!ScimGroupRules.isRoleGroup(displayName: "Leads", externalID: nil, mappings: .none))
        #expect(mappings.roles?.role(for: ["Leads", "Admins", "oid-admins"]) == .admin)
        #expect(mappings.roles?.role(for: []) == nil)
        let changes = ScimGroupRules.membershipChanges(current: ["a", "b"], wanted: ["c", "a"])
        #expect(changes.added == ["c"] && changes.removed == ["b"])
    }

    @Test func attributeChangesAreAuditedOnlyWhenSomethingChanged() {
        let profile = ScimProfile(externalID: "oid", displayName: "Ada")
        #expect(AuditRecord.scimUserUpdated(actor: "scim", userID: "u", from: ("a@x", profile), to: ("a@x", profile)) == nil)
        var renamed = profile
        renamed.displayName = "Ada F"
        let entry = AuditRecord.scimUserUpdated(actor: "scim", userID: "u", from: ("a@x", profile), to: ("b@x", renamed))
        #expect(entry?.before == ["email": "a@x", "display_name": "Ada"])
        #expect(entry?.after == ["email": "b@x", "display_name": "Ada F"])
        #expect(entry?.actor == "scim" && entry?.action == "user.update")
    }
}
