/// A device is one installation of the app: the `install_id` it registers with, never its name
/// or platform (since iOS 16 every iPhone calls itself "iPhone"). The same migration in both
/// dialects.
enum DeviceInstallations {
    /// Devices registered before keep no installation id, so a later registration without one,
    /// or with a new one, is a new device; one person's live installation is one device.
    static let sql = """
        ALTER TABLE devices ADD COLUMN install_id TEXT;
        DROP INDEX devices_live_name;
        CREATE UNIQUE INDEX devices_live_installation ON devices(user_id, install_id)
            WHERE revoked_at IS NULL AND install_id IS NOT NULL;
        """
}
