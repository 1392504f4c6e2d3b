import FieldpassDomain
import Foundation
import Logging
import PostgresNIO
public import ServiceLifecycle

/// Turns the `NOTIFY`s of every instance into this process's change signals, and keeps its
/// ``LiveRevocations`` current.
///
/// Holds one pooled connection that `LISTEN`s; when it is lost (a database restart), it
/// listens again, signals everything once and reloads the revocations, since notifications
/// sent meanwhile are gone. Heartbeats sent on the same channel prove how current the
/// revocations are (see ``StandingFreshness``).
public final class PostgresChangeListener: Service {
    /// The channel every change is announced on; the payload says which: `events`, `realms`,
    /// `lifecycle`, a ``StandingChange``, or a heartbeat.
    static let channel = "fieldpass_changes"

    let sessionEvents = ChangeSignal()
    let realmFeed = ChangeSignal()
    let lifecycleFeed = ChangeSignal()
    let revocations = LiveRevocations()
    private let client: PostgresClient
    private let logger: Logger
    /// Heartbeats are `beat:<this instance>:<number>`; other instances' are ignored.
    private let heartbeatPrefix = "beat:\(UUID().uuidString.lowercased()):"

    init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Listens and sends heartbeats until graceful shutdown or cancellation.
    public func run() async throws {
        // Both loops are children of this call: cancelled at graceful shutdown or with it.
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    while !Task.isCancelled {
                        await self.listenOnce()
                        try? await Task.sleep(for: .milliseconds(250))
                    }
                }
                group.addTask {
                    while !Task.isCancelled {
                        await self.sendHeartbeat()
                        try? await Task.sleep(for: StandingFreshness.heartbeatInterval)
                    }
                }
            }
        }
    }

    /// Returns once the revocations include every change committed before the call, or at
    /// once when they are not trusted anyway (the store answers then).
    func catchUp() async {
        guard revocations.isTrusted(at: .now) else { return }
        let number = await sendHeartbeat()
        await revocations.waitForHeartbeat(number, atMost: StandingFreshness.bound)
    }

    @discardableResult
    private func sendHeartbeat() async -> Int {
        let number = revocations.heartbeatSent(at: .now)
        // A heartbeat that fails is simply never seen back; the revocations go stale and the
        // store answers.
        try? await client.withConnection { connection in
            try await connection.execute("SELECT pg_notify(\(Self.channel), \(self.heartbeatPrefix + String(number)))")
        }
        return number
    }

    private func listenOnce() async {
        do {
            try await client.withConnection { connection in
                try await connection.listen(on: Self.channel) { notifications in
                    // Whatever was stored while nobody listened is found by looking once now.
                    signalAll()
                    let set = try await client.withConnection { try await PostgresStore.revocationSet($0, now: Date()) }
                    revocations.replace(with: set)
                    for try await notification in notifications {
                        handle(notification.payload)
                    }
                }
            }
        } catch {
            guard !Task.isCancelled else { return }
            logger.warning("Listening for PostgreSQL notifications failed; retrying", metadata: ["error.type": "\(type(of: error))"])
        }
        revocations.distrust()
    }

    private func handle(_ payload: String) {
        switch payload {
        case "events": sessionEvents.signal()
        case "realms": realmFeed.signal()
        case "lifecycle": lifecycleFeed.signal()
        default:
            if payload.hasPrefix(heartbeatPrefix) {
                if let number = Int(payload.dropFirst(heartbeatPrefix.count)) {
                    revocations.heartbeatReceived(number, now: Date())
                }
            } else if let change = StandingChange(payload: payload) {
                revocations.apply(change)
            } else if !payload.hasPrefix("beat:") {
                signalAll()
            }
        }
    }

    private func signalAll() {
        sessionEvents.signal()
        realmFeed.signal()
        lifecycleFeed.signal()
    }
}
