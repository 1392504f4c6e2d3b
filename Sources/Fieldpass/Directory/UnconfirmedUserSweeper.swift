import FieldpassDomain
import Foundation
import Logging
import ServiceLifecycle

/// Removes users created by `register_device` who never completed a sign-in, once
/// `users.unconfirmed_retention` has passed since their last registration, so typos and
/// abandoned onboardings do not keep realms forever.
struct UnconfirmedUserSweeper: Service {
    let store: any OnboardingStore
    let settings: UserSettings
    let logger: Logger

    /// Sweeps once a minute (more often for a retention shorter than that) until shutdown.
    func run() async throws {
        guard settings.unconfirmedRetention > 0 else {
            // Returning would end the whole service group, server included: idle until shutdown.
            try? await gracefulShutdown()
            return
        }
        await Ticker().run(every: .seconds(min(60, settings.unconfirmedRetention))) {
            await sweep(now: Date())
        }
    }

    /// One sweep; errors are logged and the next sweep tries again.
    func sweep(now: Date) async {
        do {
            let removed = try await store.removeUnconfirmedUsers(
                registeredBefore: now.addingTimeInterval(-TimeInterval(settings.unconfirmedRetention))
            )
            if removed > 0 {
                logger.info("Unconfirmed users removed", metadata: ["count": "\(removed)"])
            }
        } catch {
            logger.warning("Unconfirmed user sweep failed", metadata: ["error.type": "\(String(reflecting: type(of: error)))"])
        }
    }
}
