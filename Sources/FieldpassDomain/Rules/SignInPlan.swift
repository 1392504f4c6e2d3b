/// What a completed sign-in writes in its transaction: its session's move, and, only when the
/// session moved, the device's live refresh tokens revoked and the new one stored.
package struct SignInPlan: Sendable, Equatable {
    package var move: SessionMove
    /// Revoked before ``refreshToken`` is stored: one sign-in's tokens at a time per device.
    package var superseded: SupersededRefreshTokens
    package var refreshToken: RefreshTokenIssue

    package init(move: SessionMove, superseded: SupersededRefreshTokens, refreshToken: RefreshTokenIssue) {
        self.move = move
        self.superseded = superseded
        self.refreshToken = refreshToken
    }
}
