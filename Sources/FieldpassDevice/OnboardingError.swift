/// Why an onboarding ended without the device signing in. Either way the app registers
/// again to retry.
public enum OnboardingError: Error, Equatable, Sendable {
    /// The sign-in failed: `code` is the `error` of the `login_failed` event, such as
    /// `access_denied` (the person or the IdP refused), `email_mismatch` (signed in as someone
    /// else) or `browser_mismatch` (the sign-in was finished in another browser).
    case loginFailed(code: String, description: String?)
    /// Nobody signed in before the session expired.
    case sessionExpired
}
