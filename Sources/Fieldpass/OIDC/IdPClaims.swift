import FieldpassDomain
import Tokens

/// Every top-level claim of an ID token or userinfo answer, as far as a mapping
/// (`roles_from_idp`, `teams_from_idp`) reads it: text, a list of text, or something else; and
/// Entra ID's group overage markers. Decoding never fails on a claim's type.
struct IdPClaims: Decodable, Sendable {
    /// Claims that are a string (a list of one) or a list of strings.
    private var texts: [String: [String]] = [:]
    /// Every claim sent with a value other than `null`.
    private var sent: Set<String> = []
    /// The claims `_claim_names` says were left out (Entra ID's overage: read them from Graph).
    private var leftOut: Set<String> = []
    /// `hasgroups: true`: Entra ID left the `groups` claim out, without `_claim_names`.
    private var hasGroups = false

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: MemberName.self)
        for key in container.allKeys where (try? container.decodeNil(forKey: key)) != true {
            sent.insert(key.stringValue)
            if let text = try? container.decode(String.self, forKey: key) {
                texts[key.stringValue] = [text]
            } else if let list = try? container.decode([String].self, forKey: key) {
                texts[key.stringValue] = list
            }
        }
        if let names = try? container.nestedContainer(keyedBy: MemberName.self, forKey: MemberName(stringValue: "_claim_names")) {
            leftOut = Set(names.allKeys.map(\.stringValue))
        }
        hasGroups = (try? container.decode(Bool.self, forKey: MemberName(stringValue: "hasgroups"))) == true
    }

    /// The claim `name`; where these claims lack it, `fallback`'s (userinfo's, when it was read).
    func value(of name: String, fallback: IdPClaims? = nil) -> ClaimValue {
        if leftOut.contains(name) { return .overage }
        if let values = texts[name] { return .values(values) }
        if sent.contains(name) { return .unusable }
        if let fallback { return fallback.value(of: name) }
        return hasGroups && name == "groups" ? .overage : .missing
    }
}
