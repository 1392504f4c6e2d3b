/// A device's first sign-in, which tells a registered installation from one that holds tokens
/// (and writes `device.create` once). The same migration in both dialects.
enum DeviceSignIns {
    /// A device with a refresh token signed in, by its last activity at the latest; one whose
    /// tokens were purged already reads as never signed in until it signs in again.
    static let sql = """
        ALTER TABLE devices ADD COLUMN signed_in_at DOUBLE PRECISION;
        UPDATE devices SET signed_in_at = last_seen_at
            WHERE EXISTS (SELECT 1 FROM refresh_tokens r WHERE r.device_id = devices.id);
        """
}
