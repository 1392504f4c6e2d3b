public import FieldpassDomain
public import Foundation

/// The lifecycle events feed (``LifecycleEventStore``), stored with the audit entries they
/// stand for (``StoreTransaction/audit(_:environmentID:now:)``).
extension TransactionalStore {
    public func lifecycleEvents(environmentID: String, after: Int64, limit: Int) async throws -> [LifecycleFeedEntry] {
        try await placeCommitted(.lifecycleEvents)
        return try await reading { transaction in
            try await transaction.rows(LifecycleFeedStatements.entries, environmentID, after, limit).map(LifecycleFeedEntry.init(row:))
        }
    }

    public func lifecycleFeedPosition() async throws -> Int64 {
        try await placeCommitted(.lifecycleEvents)
        return try await reading { transaction in try await transaction.value(LifecycleFeedStatements.position, as: Int64.self) ?? 0 }
    }

    public func purgeLifecycleEvents(before date: Date) async throws {
        try await writing { transaction in try await transaction.execute(LifecycleFeedStatements.purge, date.timeIntervalSince1970) }
    }
}
