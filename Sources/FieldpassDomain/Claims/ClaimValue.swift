/// One claim of a sign-in as the IdP sent it, in the ID token (or userinfo).
public enum ClaimValue: Sendable, Equatable {
    /// A string (a list of one) or a list of strings.
    case values([String])
    /// Not sent.
    case missing
    /// Left out for being too many: Entra ID's group overage (`_claim_names` names the claim,
    /// or `hasgroups: true`), to be read from Microsoft Graph instead.
    case overage
    /// Sent, but neither a string nor a list of strings.
    case unusable
}
