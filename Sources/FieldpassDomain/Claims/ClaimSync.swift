/// When a mapping from the IdP's claims applies (`roles_from_idp.sync`, `teams_from_idp.sync`).
public enum ClaimSync: String, Sendable, CaseIterable {
    /// At every sign-in: what the mapping sets is the IdP's, and admins may not change it.
    case everySignIn = "every_sign_in"
    /// At the person's first successful sign-in only; admins may change it afterwards.
    case firstSignIn = "first_sign_in"

    /// Whether a sign-in of a person who has (or has not) signed in before applies the mapping.
    package func applies(signedInBefore: Bool) -> Bool {
        self == .everySignIn || !signedInBefore
    }
}
