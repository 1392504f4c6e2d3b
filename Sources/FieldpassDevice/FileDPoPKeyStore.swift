import Foundation

/// Keeps a ``SoftwareDPoPKey`` in a PEM file that only its owner may read (mode 0600), with
/// ``FileTokenStore``'s care: a symbolic link, another user's file or one open to others is
/// refused, and a new file is written whole under a random name before it is put in place.
///
/// Put it in the app's own folder, beside the token file. The key is the device's: it stays
/// through sign-outs, and a new key is a new device to Fieldpass.
public struct FileDPoPKeyStore: Sendable {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// The key in the file, or a new one kept there when there is no file. Two processes that
    /// create it at once get the same key: the file is made only where none is, and the one
    /// that finds it made reads it. Throws ``FieldpassClientError/unsafeTokenFile(path:problem:)``
    /// for a file someone else may have planted or read, and
    /// ``DPoPKeyError/unreadableKeyFile(path:)`` for one that holds no key.
    public func loadOrCreate() async throws -> SoftwareDPoPKey {
        if let saved = try load() { return saved }
        let made = SoftwareDPoPKey()
        if try PrivateFile.create(path, with: Data(made.pemRepresentation.utf8)) { return made }
        guard let saved = try load() else { throw DPoPKeyError.unreadableKeyFile(path: path) }
        return saved
    }

    private func load() throws -> SoftwareDPoPKey? {
        guard let data = try PrivateFile.read(path) else { return nil }
        do {
            return try SoftwareDPoPKey(pemRepresentation: String(decoding: data, as: UTF8.self))
        } catch {
            // Not the parser's words: they could quote the file.
            throw DPoPKeyError.unreadableKeyFile(path: path)
        }
    }
}
