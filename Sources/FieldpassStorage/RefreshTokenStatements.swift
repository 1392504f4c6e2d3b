/// The statements on refresh tokens and revoked access tokens both stores share
/// (``SharedStatement``).
enum RefreshTokenStatements {
    /// The id of the token's user: token hash. A token's user never changes, so a rotation
    /// finds it, to lock it, before it locks the token.
    static let holder = SharedStatement { value in
        "SELECT id FROM users WHERE id = (SELECT user_id FROM refresh_tokens WHERE token_hash = \(value(1)))"
    }

    /// The token with its user's and device's standing, and its shift if its device is one
    /// (``RefreshRules/Token``): token hash. The standing is read in a WITH query, which
    /// PostgreSQL's `FOR UPDATE` does not lock: read to be changed, only the token's row is
    /// locked, as its user's lock already guards the rest.
    static let token = SharedStatement { value in
        """
        WITH standing AS (
            SELECT r.token_hash, u.environment_id, u.disabled_at, d.revoked_at AS device_revoked_at,
                   d.last_seen_at AS device_last_seen_at, \(ShiftTables.refreshColumns)
            FROM refresh_tokens r JOIN users u ON u.id = r.user_id JOIN devices d ON d.id = r.device_id
            LEFT JOIN shifts s ON s.id = r.device_id
            WHERE r.token_hash = \(value(1))
        )
        SELECT r.user_id, r.device_id, r.created_at, r.expires_at, r.max_expires_at, r.revoked_at, r.rotated_at,
               r.successor_hash, r.successor_sealed, r.dpop_jkt, standing.*
        FROM refresh_tokens r JOIN standing ON standing.token_hash = r.token_hash
        WHERE r.token_hash = \(value(1))
        """
    }

    /// Revokes the device's tokens not revoked yet, rotated ones too (``SupersededRefreshTokens``):
    /// time, device.
    static let revokeSuperseded = SharedStatement { value in
        "UPDATE refresh_tokens SET revoked_at = \(value(1)) WHERE device_id = \(value(2)) AND revoked_at IS NULL"
    }

    /// Remembers an access token revoked until it expires: jti, expiry.
    static let revokeAccessToken = SharedStatement { value in
        "INSERT INTO revoked_tokens (jti, expires_at) VALUES (\(value(1)), \(value(2))) ON CONFLICT (jti) DO NOTHING"
    }

    /// Whether the access token, or its device, is revoked: jti, device.
    static let revoked = SharedStatement { value in
        """
        SELECT EXISTS (SELECT 1 FROM revoked_tokens WHERE jti = \(value(1)))
            OR EXISTS (SELECT 1 FROM devices WHERE id = \(value(2)) AND revoked_at IS NOT NULL)
        """
    }
}
