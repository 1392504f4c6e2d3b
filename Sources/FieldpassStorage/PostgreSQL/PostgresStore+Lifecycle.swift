public import FieldpassDomain
import PostgresNIO
import Synchronization

/// The lifecycle events feed (``LifecycleEventStore``), read by the operations written once:
/// rows are stored unplaced and given their positions after commit, like the realm feed's
/// (see ``PostgresFeed``).
extension PostgresStore: LifecycleEventStore {
    /// The events of an audit entry, as the bodies the statement that
    /// ``auditing(_:environmentID:now:following:then:)`` builds stores with it, unplaced.
    static func lifecycleEventBodies(of entry: AuditRecord) throws -> [String] {
        try LifecycleEventRules.events(for: entry).map(StableJSON.text)
    }
}

/// Whether the write under way stored lifecycle events: ``PostgresStore/write(_:)`` publishes
/// the feed after its commit then, and only then, so that other writes cost nothing more.
final class LifecycleWrites: Sendable {
    @TaskLocal static var current: LifecycleWrites?

    private let stored = Mutex(false)

    func wrote() { stored.withLock { $0 = true } }

    var any: Bool { stored.withLock { $0 } }
}
