/// Keeps a shared device's offline records for as long as the process runs: for tests, and a
/// device that is never switched off.
public final class MemoryOfflineStore: OfflineStore {
    private let records = LockedValue<OfflineRecords?>(nil)

    public init() {}

    public func load() -> OfflineRecords? { records.value }

    public func save(_ records: OfflineRecords) { self.records.value = records }
}
