import FieldpassDomain
import Foundation
import Logging
public import ServiceLifecycle

/// Expires unfinished sessions (their devices get `session_expired`) and deletes old ones,
/// lifecycle events older than ``LifecycleEventRules/retention``, and the console's dead
/// sign-ins and sessions; ends the shifts on shared devices past a limit.
public struct SessionSweeper: Service {
    let store: any OnboardingStore
    let settings: SessionSettings
    var shiftLimits = ShiftLimits()
    let logger: Logger

    /// Shifts ended by one sweep at most; the next sweep ends the rest.
    static let shiftsPerSweep = 500

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
            if let sharedDevices = store as? any SharedDeviceStore {
                let ended = try await sharedDevices.endOverdueShifts(limits: shiftLimits, now: now, limit: Self.shiftsPerSweep)
                if ended > 0 { logger.info("Shifts ended past a limit", metadata: ["count": "\(ended)"]) }
            }
        } catch {
            logger.warning("Session sweep failed", metadata: ["error.type": "\(String(reflecting: type(of: error)))"])
        }
    }
}
