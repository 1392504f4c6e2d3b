public import Foundation

/// Which key signs and which keys are published, at any moment.
///
/// Every key in the folder is published at once. A new key signs only after `publishDelay`,
/// so that verifiers which cache the JWKS have it before the first token it signs: the
/// newest key whose delay has passed signs (when none has, as on a first start, the
/// oldest). A key whose file was removed stays published, verify-only, until
/// `RemovedKey.publishedUntil`.
public struct KeySchedule: Sendable {
    /// A key's part in the schedule.
    public enum State: String, Sendable {
        /// Published, signs once its delay has passed.
        case next
        /// Signs new tokens.
        case signing
        /// Published so that the tokens it signed still verify.
        case retiring
    }

    /// One published key and its state.
    public struct Entry: Sendable {
        public let key: SigningKey
        public let state: State
        /// Its file's name; `nil` once the file is removed.
        public let fileName: String?
        public let addedAt: Date?
        /// When a `next` key starts to sign.
        public let signsFrom: Date?
        /// When a removed key stops being published.
        public let publishedUntil: Date?
    }

    /// A key whose file is gone.
    public struct RemovedKey: Sendable {
        public let key: SigningKey
        public let publishedUntil: Date
    }

    /// The folder's keys, newest first (never empty).
    public let files: [KeyFile]
    public let removed: [RemovedKey]
    public let publishDelay: TimeInterval

    /// A schedule over `files` (newest first, as `KeyFile.readAll` returns them; not empty).
    public init(files: [KeyFile], removed: [RemovedKey] = [], publishDelay: TimeInterval) {
        precondition(!files.isEmpty, "a key schedule needs at least one key")
        self.files = files
        self.removed = removed
        self.publishDelay = publishDelay
    }

    /// The schedule for a new reading of the folder: keys of `previous` whose files are gone
    /// stay published for `retention` from `now` (the access-token lifetime, so that every
    /// token they signed expires first). A removed key whose file comes back is a file again.
    public func carryingRemovals(from previous: KeySchedule, now: Date, retention: TimeInterval) -> KeySchedule {
        let present = Set(files.map(\.key.kid))
        var removed = previous.removed.filter { !present.contains($0.key.kid) && $0.publishedUntil > now }
        var listed = Set(removed.map(\.key.kid))
        for file in previous.files where !present.contains(file.key.kid) && listed.insert(file.key.kid).inserted {
            removed.append(RemovedKey(key: file.key, publishedUntil: now.addingTimeInterval(retention)))
        }
        return KeySchedule(files: files, removed: removed, publishDelay: publishDelay)
    }

    /// The index in `files` of the key that signs at `now`.
    private func signingIndex(at now: Date) -> Int {
        files.firstIndex { $0.addedAt.addingTimeInterval(publishDelay) <= now } ?? files.count - 1
    }

    /// Every key published at `now`: the signing key, then `next` keys (newer files), then
    /// retiring ones (older files, then removed keys).
    public func entries(at now: Date) -> [Entry] {
        let signing = signingIndex(at: now)
        func entry(_ file: KeyFile, _ state: State) -> Entry {
            Entry(
                key: file.key, state: state, fileName: file.name, addedAt: file.addedAt,
                signsFrom: state == .next ? file.addedAt.addingTimeInterval(publishDelay) : nil, publishedUntil: nil
            )
        }
        var entries = [entry(files[signing], .signing)]
        entries += files[..<signing].map { entry($0, .next) }
        entries += files[(signing + 1)...].map { entry($0, .retiring) }
        for key in removed where key.publishedUntil > now {
            entries.append(
                Entry(key: key.key, state: .retiring, fileName: nil, addedAt: nil, signsFrom: nil, publishedUntil: key.publishedUntil))
        }
        return entries
    }

    /// The key ring at `now`: signs with the signing key, verifies with every published key.
    public func ring(at now: Date) -> KeyRing {
        let entries = entries(at: now)
        return KeyRing(signingKey: entries[0].key, others: entries.dropFirst().map(\.key))
    }

    /// The first moment after `now` when `ring(at:)` changes without the folder changing.
    public func nextChange(after now: Date) -> Date? {
        let moments = files.map { $0.addedAt.addingTimeInterval(publishDelay) } + removed.map(\.publishedUntil)
        return moments.filter { $0 > now }.min()
    }
}
