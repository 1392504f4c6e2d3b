import Foundation
import Testing
@testable import FieldpassDomain

@Suite("SCIM PATCH: work linear in the request and the group, and bounded")
struct ScimPatchTargetTests {
    static let size = 10_000

    /// A group of `size` members `m0` … `m9999`, as a store gives it to PATCH.
    static func group(_ size: Int = size) -> [String: ScimJSON] {
        ScimGroupResource.attributes(
            of: ScimGroupRecord(
                id: "g1", teamID: nil, displayName: "Crew", externalID: nil, members: (0..<size).map { "m\($0)" }, createdAt: Date(),
                updatedAt: Date()))
    }

    static func operation(_ op: ScimPatch.Op, _ path: String, _ value: ScimJSON? = nil) -> ScimPatch.Operation {
        ScimPatch.Operation(op: op, path: try? ScimPath.parse(path), value: value)
    }

    static func members(_ ids: [String]) -> ScimJSON {
        .array(ids.map { .object(["value": .string($0)]) })
    }

    /// The review's request: 100 one-value operations on a group of 10,000. The group is
    /// indexed once for the whole request, so the work is one pass over it plus one for each
    /// operation, value and element picked; rebuilding the index for each add, or scanning the
    /// group for each selection, would count a million.
    @Test func aHundredOperationsOnTenThousandMembersPassOverTheGroupOnce() throws {
        let leaving = (0..<50).map { "m\($0)" }
        let joining = (0..<50).map { "n\($0)" }
        let operations =
            leaving.map { Self.operation(.remove, #"members[value eq "\#($0)"]"#) }
            + joining.map { Self.operation(.add, "members", Self.members([$0])) }
        var target = ScimPatchTarget(Self.group())
        for operation in operations { try target.apply(operation) }

        #expect(target.touched == Self.size + 100 + 50 + 50)
        let members = try ScimGroupResource.parse(.object(target.resource)).members
        #expect(members.count == Self.size && Set(members).isDisjoint(with: leaving) && members.suffix(50) == joining[...])
        #expect(members.prefix(2) == ["m50", "m51"], "the members stay in order")
    }

    @Test func aRequestPastTheWorkLimitIsRefusedBeforeItDoesTheWork() throws {
        // Each selection on `display` is a pass over the group, which no index answers.
        let pass = Self.operation(.remove, #"members[display eq "nobody"]"#)
        let passes = ScimPatch.maxTouched / Self.size
        var target = ScimPatchTarget(Self.group())
        var refusal: ScimError?
        for _ in 0...passes {
            do {
                try target.apply(pass)
            } catch {
                refusal = error
                break
            }
        }
        #expect(refusal?.scimType == "tooMany" && refusal?.status == 400)
        #expect(target.touched <= ScimPatch.maxTouched + Self.size, "the refused pass was counted, not made")
        let allowed = Array(repeating: pass, count: passes - 2)
        #expect(try ScimPatch.apply(allowed, to: Self.group()) == Self.group())
    }

    @Test func operationsAndValuesPastTheirLimitsAreTooMany() throws {
        func body(_ operations: [ScimJSON]) -> ScimJSON {
            .object(["schemas": .array([.string(ScimSchemas.patchOp)]), "Operations": .array(operations)])
        }
        let add = ScimJSON.object(["op": .string("add"), "path": .string("members"), "value": Self.members(["a"])])
        #expect(try ScimPatch.operations(body(Array(repeating: add, count: ScimPatch.maxOperations))).count == ScimPatch.maxOperations)
        let large = ScimJSON.object([
            "op": .string("add"), "path": .string("members"),
            "value": Self.members((0...ScimPatch.maxValuesPerOperation).map { "m\($0)" }),
        ])
        for refused in [body(Array(repeating: add, count: ScimPatch.maxOperations + 1)), body([large])] {
            do {
                _ = try ScimPatch.operations(refused)
                Issue.record("accepted a PATCH past a limit")
            } catch {
                #expect(error.scimType == "tooMany")
            }
        }
    }

    /// Selections by `value` are answered by the index, others by a pass: both pick the same
    /// elements, also after the list was replaced whole, and names compare in any case.
    @Test func indexedAndScannedSelectionsAgree() throws {
        let group: [String: ScimJSON] = [
            "members": .array([
                .object(["value": .string("a"), "display": .string("Ada")]), .object(["value": .string("b"), "display": .string("Bo")]),
            ])
        ]
        let byValue = try ScimPatch.apply([Self.operation(.remove, #"Members[VALUE eq "a"]"#)], to: group)
        let byDisplay = try ScimPatch.apply([Self.operation(.remove, #"members[display eq "Ada"]"#)], to: group)
        #expect(byValue == byDisplay)
        #expect(byValue["members"] == .array([.object(["value": .string("b"), "display": .string("Bo")])]))
        let replaced = try ScimPatch.apply(
            [
                Self.operation(.remove, #"members[value eq "a"]"#), Self.operation(.replace, "members", Self.members(["c", "d"])),
                Self.operation(.replace, #"members[value eq "c"].display"#, .string("Cy")),
                Self.operation(.remove, "members", Self.members(["d"])),
            ], to: group)
        #expect(replaced["members"] == .array([.object(["value": .string("c"), "display": .string("Cy")])]))
    }

    @Test func membersAddedTwiceOrRemovedByValueAreEachOnceAndAnEmptiedListIsUnassigned() throws {
        let added = try ScimPatch.apply(
            [Self.operation(.add, "members", Self.members(["a", "b", "a"])), Self.operation(.add, "members", Self.members(["b", "c"]))],
            to: ["members": Self.members(["a"])])
        #expect(added["members"] == Self.members(["a", "b", "c"]))
        let emptied = try ScimPatch.apply(
            [Self.operation(.remove, "members", Self.members(["a", "c"])), Self.operation(.remove, #"members[value eq "b"]"#)], to: added)
        #expect(emptied["members"] == nil)
        let again = try ScimPatch.apply(
            [Self.operation(.add, #"members[value eq "z"]"#, .object(["display": .string("Zed")]))], to: emptied)
        #expect(again["members"] == .array([.object(["value": .string("z"), "display": .string("Zed")])]))
    }
}
