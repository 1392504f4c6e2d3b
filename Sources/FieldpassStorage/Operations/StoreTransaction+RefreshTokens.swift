import FieldpassDomain

/// The refresh tokens as operations read them (``RefreshTokenStatements``).
extension StoreTransaction {
    /// The token with its user's and device's standing.
    func refreshToken(hash: String) async throws -> RefreshRules.Token? {
        try await first(RefreshTokenStatements.token, hash).map(RefreshRules.Token.init(row:))
    }

    /// Locks the token's user, then reads and locks the token, both until the transaction ends.
    /// The user first, as every change to a person's things does, so a rotation never
    /// deadlocks with a revocation of the same device. Returns `nil` for an unknown token.
    func lockRefreshToken(hash: String) async throws -> RefreshRules.Token? {
        try await lock(.users, by: RefreshTokenStatements.holder, hash)
        return try await first(RefreshTokenStatements.token, hash, locking: .refreshTokens).map(RefreshRules.Token.init(row:))
    }
}
