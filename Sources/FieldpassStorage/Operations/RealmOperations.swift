public import FieldpassDomain
public import Foundation

/// Realms: marked initialized once their data is in (``SessionRules/realmInitialization(_:askedIn:announcedRealm:now:)``),
/// and the realm feed of the integration API.
extension TransactionalStore {
    /// Locks the realm: of two markings at once, the second finds it marked; a sign-in reading
    /// it meanwhile sees the marking or is seen by it, so `data_ready` is never lost.
    public func markRealmInitialized(path: String, environmentID: String?, now: Date) async throws -> RealmInitialization? {
        let marked = try await writing { [realmPrefixes] transaction -> RealmInitialization? in
            let timestamp = now.timeIntervalSince1970
            guard let realm = try await transaction.first(RealmFeedStatements.facts, path, locking: .realms).map(RealmFacts.init(row:))
            else {
                return nil
            }
            let announced = realmPrefixes.outward(path, environmentID: realm.environmentID)
            guard let plan = SessionRules.realmInitialization(realm, askedIn: environmentID, announcedRealm: announced, now: timestamp)
            else { return nil }
            let events = try await transaction.apply(plan.move).events
            // A change the integration feed shows again, now as initialized.
            if plan.marksRealm { try await transaction.markRealmInitialized(path: path, at: timestamp) }
            return RealmInitialization(wasInitialized: !plan.marksRealm, events: events)
        }
        if let marked {
            announce(.realms)
            await announce(marked.events)
        }
        return marked
    }

    /// Positions become visible in the order they are given, so a reader that continues after
    /// the last position it saw never skips a realm.
    public func realmFeed(environmentID: String, after: Int64, initialized: Bool?, limit: Int) async throws -> [RealmFeedEntry] {
        try await placeCommitted(.realms)
        return try await reading { transaction in
            try await transaction.rows(RealmFeedStatements.entries, environmentID, after, initialized, limit).map(RealmFeedEntry.init(row:))
        }
    }

    public func realmFeedPosition() async throws -> Int64 {
        try await placeCommitted(.realms)
        return try await reading { transaction in try await transaction.value(RealmFeedStatements.position, as: Int64.self) ?? 0 }
    }
}
