import Foundation

/// Keeps a shared device's offline records in one JSON file that only its owner may read (mode
/// 0600), replaced atomically on each save, with the care of ``FileTokenStore``: a symbolic
/// link, another user's file or one that others may read is refused with
/// ``FieldpassClientError/unsafeTokenFile(path:problem:)``. Nothing in it is a token, a badge or
/// a PIN, but its verifiers are worth guarding: keep it in the app's own folder.
public struct FileOfflineStore: OfflineStore {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    public func load() throws -> OfflineRecords? {
        try PrivateFile.read(path).map { try JSONDecoder.fieldpass.decode(OfflineRecords.self, from: $0) }
    }

    public func save(_ records: OfflineRecords) throws {
        try PrivateFile.replace(path, with: try JSONEncoder.fieldpass.encode(records))
    }
}
