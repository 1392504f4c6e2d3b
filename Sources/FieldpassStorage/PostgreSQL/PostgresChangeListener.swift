import FieldpassDomain
import Logging
import PostgresNIO
public import ServiceLifecycle

/// Turns the `NOTIFY`s of every instance into this process's change signals.
///
/// Holds one pooled connection that `LISTEN`s; when it is lost (a database restart), it
/// listens again and signals everything once, since notifications sent meanwhile are gone.
public final class PostgresChangeListener: Service {
    /// The channel every change is announced on; the payload says which: `events` or `realms`.
    static let channel = "fieldpass_changes"

    let sessionEvents = ChangeSignal()
    let realmFeed = ChangeSignal()
    private let client: PostgresClient
    private let logger: Logger

    init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Listens until graceful shutdown or cancellation.
    public func run() async throws {
        let listening = Task {
            while !Task.isCancelled {
                await listenOnce()
                try? await Task.sleep(for: .milliseconds(250))
            }
        }
        await withGracefulShutdownHandler {
            await withTaskCancellationHandler {
                await listening.value
            } onCancel: {
                listening.cancel()
            }
        } onGracefulShutdown: {
            listening.cancel()
        }
    }

    private func listenOnce() async {
        do {
            try await client.withConnection { connection in
                try await connection.listen(on: Self.channel) { notifications in
                    // Whatever was stored while nobody listened is found by looking once now.
                    signalAll()
                    for try await notification in notifications {
                        switch notification.payload {
                        case "events": sessionEvents.signal()
                        case "realms": realmFeed.signal()
                        default: signalAll()
                        }
                    }
                }
            }
        } catch {
            guard !Task.isCancelled else { return }
            logger.warning("Listening for PostgreSQL notifications failed; retrying", metadata: ["error.type": "\(type(of: error))"])
        }
    }

    private func signalAll() {
        sessionEvents.signal()
        realmFeed.signal()
    }
}
