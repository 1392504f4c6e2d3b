import Foundation

/// Keeps the tokens in one JSON file that only its owner may read (mode 0600), replaced
/// atomically on each save so a crash leaves the old tokens or the new ones, never half.
///
/// Put the file in the app's own folder (Application Support on Apple platforms; on Linux
/// `$XDG_DATA_HOME`, else `~/.local/share`), never in a shared one such as `/tmp`. Even there
/// the store uses no file it did not make: ``load()`` refuses a symbolic link, another user's
/// file and one that others may read or write, and ``save(_:)`` writes a new file under a name
/// nobody can guess before it puts it in place.
public struct FileTokenStore: TokenStore {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// The saved tokens, or `nil` when there is no file. Throws
    /// ``FieldpassClientError/unsafeTokenFile(path:problem:)`` for a file someone else may
    /// have planted or read: a sign-out would hide that, and a planted file's tokens are not ours.
    public func load() async throws -> TokenSet? {
        try PrivateFile.read(path).map { try JSONDecoder.fieldpass.decode(TokenSet.self, from: $0) }
    }

    public func save(_ tokens: TokenSet) async throws {
        try PrivateFile.replace(path, with: try JSONEncoder.fieldpass.encode(tokens))
    }

    /// Kept in `<path>.installation`, with the same care, so that a sign-out (which removes the
    /// token file) leaves it.
    public func loadInstallationID() async throws -> String? {
        try PrivateFile.read(installationPath).map { String(decoding: $0, as: UTF8.self) }
    }

    public func saveInstallationID(_ id: String) async throws {
        try PrivateFile.replace(installationPath, with: Data(id.utf8))
    }

    private var installationPath: String { path + ".installation" }

    public func clear() async throws {
        try PrivateFile.remove(path)
    }
}
