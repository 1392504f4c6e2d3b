/// What a completed sign-in writes in its transaction: its session's move, and, only when the
/// session moved, the device's live refresh tokens revoked and the new one stored.
package struct SignInPlan: Sendable, Equatable {
    package var move: SessionMove
    /// Stored in place of the device's live tokens (not revoked, not rotated): one sign-in's
    /// tokens at a time per device.
    package var refreshToken: RefreshTokenIssue

    package init(move: SessionMove, refreshToken: RefreshTokenIssue) {
        self.move = move
        self.refreshToken = refreshToken
    }
}
