/// One step of an onboarding, in the order they happen.
public enum OnboardingEvent: Sendable, Equatable {
    /// The person signed in; the tokens are in the client's store already.
    case signedIn(TokenSet)
    /// The worker's personal realm exists (it may still be empty).
    case realmInitialized(path: String)
    /// The company's backend has filled the realm: the app can open it. The last event.
    case dataReady(path: String)
}
