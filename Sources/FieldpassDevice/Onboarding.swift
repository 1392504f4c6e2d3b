public import Foundation

/// A registered onboarding: what the app shows, where the browser goes, and what follows.
public struct Onboarding: Sendable {
    /// The short code the app shows; the confirmation page repeats it.
    public let userCode: String
    /// Where the app opens the browser (`ASWebAuthenticationSession` on iOS).
    public let loginURL: URL
    /// When the session expires unless someone signs in.
    public let expiresAt: Date
    /// The onboarding's events, to follow with `for try await`.
    public let events: OnboardingEvents
}
