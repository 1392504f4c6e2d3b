import FieldpassDomain
import GRDB

extension SQLiteStore {
    /// Counts a step of onboarding, in the transaction that took it.
    static func countOutcome(_ outcome: OnboardingOutcome, reason: String? = nil, environmentID: String, db: Database, now: Double) throws {
        try db.execute(cached: OnboardingStatements.countOutcome.sqlite, arguments: [environmentID, outcome.rawValue, reason, now])
    }
}
