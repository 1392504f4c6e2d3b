import FieldpassDomain
import Foundation
import Logging
public import ServiceLifecycle

/// Expires unfinished sessions (their devices get `session_expired`) and deletes old ones,
/// lifecycle events older than ``LifecycleEventRules/retention``, and the console's dead
/// sign-ins and sessions.
public struct SessionSweeper: Service {
    let store: any OnboardingStore
    let settings: SessionSettings
    let logger: Logger

    /// Sweeps every `sessions.sweep_interval` seconds until shutdown.
    public func run() async throws {
        await Ticker().run(every: .seconds(settings.sweepInterval)) {
            await sweep(now: Date())
        }
    }

    /// One sweep; errors are logged and the next sweep tries again.
    func sweep(now: Date) async {
        do {
            let events = try await store.sweepSessions(
                now: now, deliveredBefore: now.addingTimeInterval(-TimeInterval(settings.deliveryGrace)),
                deleteBefore: now.addingTimeInterval(-TimeInterval(settings.retention))
            )
            FieldpassMetrics.onboarding(.expired, count: events.count)
            if !events.isEmpty {
                logger.info("Sessions expired", metadata: ["count": "\(events.count)"])
            }
            if let lifecycle = store as? any LifecycleEventStore {
                try await lifecycle.purgeLifecycleEvents(before: now.addingTimeInterval(-LifecycleEventRules.retention))
            }
            if let console = store as? any ConsoleStore {
                try await console.sweepConsole(now: now)
            }
        } catch {
            logger.warning("Session sweep failed", metadata: ["error.type": "\(String(reflecting: type(of: error)))"])
        }
    }
}
