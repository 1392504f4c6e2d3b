/// Who the console's onboarding page lists as waiting for data, the same in both dialects.
enum OnboardingWaiting {
    /// The person `u` signed in on a device, which then holds a refresh token: someone who
    /// signed in only at the console waits for nothing.
    static let hasSignedInDevice = "EXISTS (SELECT 1 FROM refresh_tokens t WHERE t.user_id = u.id)"
}
