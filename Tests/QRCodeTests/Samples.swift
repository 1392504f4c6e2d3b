/// Texts like the ones the console draws.
enum Samples {
    /// A shared device's enrollment code.
    static let enrollmentCode = "FPE-7K2M-9QXW-4TZR-HB3N"
    /// A worker's badge: `fpb_` and 32 random bytes in base64url (43 characters).
    static let badge = "fpb_Zq8xK2vN-7tLwR4pYc_Hs1mJd9eUaB3fG0iVkXoTnQ6"
    /// Lower and upper case, which a reader must give back as they were.
    static let mixedCase = "Fieldpass Badge: aBcDeF xyz XYZ"
}
