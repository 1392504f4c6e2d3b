import FieldpassDomain
/// What the layout around every console page shows: the title, the navigation for the
/// signed-in person's role, and the sign-out form with the session's anti-CSRF token.
struct ConsoleChrome: Sendable {
    let title: String
    /// The title as the page's heading shows it, an email or a long name broken between its parts.
    let heading: ConsoleText
    let base: String
    /// `nil` on pages seen before signing in.
    let signedIn: SignedIn?

    struct SignedIn: Sendable {
        let email: ConsoleText
        let role: String
        let csrfToken: String
        let isAdmin: Bool
        /// Which section the page belongs to, for `aria-current`.
        let inPeople: Bool
        let inTeams: Bool
        let inSharedDevices: Bool
        let inOnboarding: Bool
        let inAudit: Bool
        let inKeys: Bool
    }

    enum Section { case people, teams, sharedDevices, onboarding, audit, keys }

    init(title: String, base: String, visit: ConsoleVisit, section: Section) {
        self.title = title
        heading = ConsoleText(title)
        self.base = base
        signedIn = SignedIn(
            email: ConsoleText(visit.user.email), role: visit.user.role.rawValue, csrfToken: visit.cookie.formToken, isAdmin: visit.isAdmin,
            inPeople: section == .people, inTeams: section == .teams, inSharedDevices: section == .sharedDevices,
            inOnboarding: section == .onboarding,
            inAudit: section == .audit, inKeys: section == .keys
        )
    }

    private init(title: String, base: String) {
        self.title = title
        heading = ConsoleText(title)
        self.base = base
        signedIn = nil
    }

    static func signedOut(title: String, base: String) -> ConsoleChrome { ConsoleChrome(title: title, base: base) }
}
