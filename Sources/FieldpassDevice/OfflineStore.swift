/// Where a shared device keeps its ``OfflineRecords`` between launches: a private file
/// (``FileOfflineStore``), or the platform's keychain. In memory (``MemoryOfflineStore``) the
/// permits are lost with the process, and a worker can take over offline only until then.
///
/// Synchronous, as a file or the keychain answers: the device reads, changes and saves the
/// records one operation at a time, and holds no copy of its own between them.
public protocol OfflineStore: Sendable {
    /// The saved records, or `nil` when there are none yet.
    func load() throws -> OfflineRecords?
    /// Replaces the saved records.
    func save(_ records: OfflineRecords) throws
}
