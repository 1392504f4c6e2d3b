/// Where state lives.
///
/// Keys: `storage.sqlite_path` (default `data/fieldpass.sqlite`; the folder is created).
public struct StorageSettings: Sendable {
    /// Path of the SQLite database file.
    public var sqlitePath: String

    init(_ settings: SettingsReader) throws(ConfigurationError) {
        sqlitePath = try settings.string(["storage", "sqlite_path"], default: "data/fieldpass.sqlite")
    }
}
