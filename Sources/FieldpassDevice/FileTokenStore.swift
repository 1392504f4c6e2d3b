import Foundation

/// Keeps the tokens in one JSON file that only its owner may read (mode 0600), replaced
/// atomically on each save so a crash leaves the old tokens or the new ones, never half.
public struct FileTokenStore: TokenStore {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    public func load() async throws -> TokenSet? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try JSONDecoder.fieldpass.decode(TokenSet.self, from: data)
    }

    public func save(_ tokens: TokenSet) async throws {
        let temporary = path + ".tmp"
        let data = try JSONEncoder.fieldpass.encode(tokens)
        // Created with its mode, so the tokens are never readable by others, not even briefly.
        _ = FileManager.default.createFile(atPath: temporary, contents: nil, attributes: [.posixPermissions: 0o600])
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: temporary)
        try data.write(to: URL(fileURLWithPath: temporary))
        guard rename(temporary, path) == 0 else {
            // No copy of the tokens is left behind beside a file that could not be replaced.
            try? FileManager.default.removeItem(atPath: temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
    }

    public func clear() async throws {
        guard FileManager.default.fileExists(atPath: path) else { return }
        try FileManager.default.removeItem(atPath: path)
    }
}
