/// What the client reports besides a failed onboarding (``OnboardingError``).
public enum FieldpassClientError: Error, Equatable, Sendable {
    /// No tokens are stored: onboard first.
    case notSignedIn
    /// Fieldpass refused the refresh token (`invalid_grant`): it was used twice, so someone
    /// may hold a copy and Fieldpass cut the device off, or an admin revoked the device, or
    /// it expired. The stored tokens are cleared; onboard again.
    case deviceRevoked
    /// A ``SharedDevice``'s key is no enrolled device's: an admin (or the team's manager)
    /// unenrolled it, which ended the shift it had, or it never enrolled. The shift's tokens are
    /// forgotten. Wipe everything the last worker left and show the setup screen: enrolling
    /// again takes a new code and a new key (a key enrolls one device, ever).
    case notEnrolled
    /// Fieldpass answered with an error: its status, `error` code and `error_description`.
    case server(status: Int, error: String, description: String?)
    /// An answer that is not what the API documents.
    case unexpectedResponse(status: Int)
    /// ``FileTokenStore`` did not read the file at `path`: someone other than the device's user
    /// may have planted it or read it (see ``TokenFileProblem``). Nothing is cleared: remove the
    /// file, put the store in the app's own folder, and onboard again.
    case unsafeTokenFile(path: String, problem: TokenFileProblem)
}
