/// The statements of ``TokenPurge``'s steps both stores share (``SharedStatement``). PostgreSQL's
/// skip the refresh tokens another transaction has locked (a rotation, a revocation): they are
/// done at the next sweep, and waiting for them could deadlock against a device revocation
/// that locks the same tokens in another order. SQLite's single writer finds none locked.
enum TokenPurgeStatements {
    /// Forgets revoked access tokens expired by then: time.
    static let forgetRevocations = SharedStatement { value in "DELETE FROM revoked_tokens WHERE expires_at <= \(value(1))" }

    /// Deletes refresh tokens expired by then: time.
    static let deleteExpiredRefreshTokens = SharedStatement(dialects: { sql in
        """
        DELETE FROM refresh_tokens
        WHERE token_hash IN (SELECT token_hash FROM refresh_tokens WHERE expires_at <= \(sql.value(1))\(skippingLocked(sql)))
        """
    })

    /// Deletes tokens rotated before then whose successor was rotated too: time.
    static let deleteTwiceRotated = SharedStatement(dialects: { sql in
        """
        DELETE FROM refresh_tokens
        WHERE token_hash IN (
            SELECT old.token_hash FROM refresh_tokens old JOIN refresh_tokens next ON next.token_hash = old.successor_hash
            WHERE old.rotated_at < \(sql.value(1)) AND next.rotated_at IS NOT NULL\(skippingLocked(sql, of: "old"))
        )
        """
    })

    /// Clears the sealed successors of tokens rotated before then: time.
    static let clearSealedSuccessors = SharedStatement(dialects: { sql in
        """
        UPDATE refresh_tokens SET successor_sealed = NULL
        WHERE token_hash IN (
            SELECT token_hash FROM refresh_tokens
            WHERE successor_sealed IS NOT NULL AND rotated_at < \(sql.value(1))\(skippingLocked(sql))
        )
        """
    })

    /// PostgreSQL's lock of the rows a step selects (of `table` alone, if given), skipping
    /// those locked already.
    private static func skippingLocked(_ sql: SQLDialect, of table: String? = nil) -> String {
        guard sql.isPostgres else { return "" }
        return " FOR UPDATE" + (table.map { " OF \($0)" } ?? "") + " SKIP LOCKED"
    }
}
