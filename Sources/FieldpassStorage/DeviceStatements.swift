/// The statements on devices both stores share (``SharedStatement``).
enum DeviceStatements {
    /// The person's devices, newest first.
    static let devices = SharedStatement { value in
        "SELECT * FROM devices WHERE user_id = \(value(1)) ORDER BY created_at DESC, id"
    }

    /// The device's name and revocation, if it is the person's: device, person.
    static let device = SharedStatement { value in
        "SELECT name, revoked_at FROM devices WHERE id = \(value(1)) AND user_id = \(value(2))"
    }

    /// When the device was last seen: device.
    static let lastSeen = SharedStatement { value in "SELECT last_seen_at FROM devices WHERE id = \(value(1))" }

    /// The person's devices not revoked yet.
    static let live = SharedStatement { value in "SELECT id FROM devices WHERE user_id = \(value(1)) AND revoked_at IS NULL" }

    /// Revokes a device not revoked yet: time, device.
    static let revoke = SharedStatement { value in
        "UPDATE devices SET revoked_at = \(value(1)) WHERE id = \(value(2)) AND revoked_at IS NULL"
    }

    /// Revokes the device's refresh tokens, keeping an earlier revocation's time, and drops
    /// their sealed successors: time, device.
    static let revokeRefreshTokens = SharedStatement { value in
        "UPDATE refresh_tokens SET revoked_at = COALESCE(revoked_at, \(value(1))), successor_sealed = NULL WHERE device_id = \(value(2))"
    }
}
