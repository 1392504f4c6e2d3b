public import ArgumentParser
import CommandLineSupport
import Fieldpass
import FieldpassStorage
import Foundation
import Hummingbird
public import Logging
import Metrics
import NIOCore
import Prometheus
import ServiceLifecycle
import UnixSignals

/// `fieldpass serve`: runs the service until SIGINT (at once) or SIGTERM (after draining).
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "serve", abstract: "Run the Fieldpass service.")

    @OptionGroup var options: ConfigOptions

    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .info

    @Option(name: .long, help: "Log format: text or json (one object a line).")
    var logFormat: LogFormat = .text

    func run() async throws {
        let configuration = try options.load()
        for environment in configuration.environments where environment.idp.clientSecret == nil {
            throw CommandFailure(
                "environments.\(environment.id).idp.client_secret_env: set the environment variable \(environment.idp.clientSecretVariable)"
            )
        }
        logFormat.bootstrap(level: logLevel)
        // A write past the file size limit (ulimit -f) fails with EFBIG, which the store
        // answers as 503 like a full disk, instead of the signal killing the process.
        signal(SIGXFSZ, SIG_IGN)
        let logger = Logger(label: "fieldpass")
        try await StoreFactory.migrate(configuration.storage, logger: logger)
        let readiness = Readiness()
        let metrics = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: metrics))
        let app = try await buildApplication(configuration: configuration, readiness: readiness, metrics: metrics, logger: logger)
        var group = ServiceGroupConfiguration(services: [app], gracefulShutdownSignals: [.sigint], logger: logger)
        // What is still running then is cancelled, and a cancelled connection closes
        // (`GuardedServerChannel`): no client can hold up the shutdown.
        group.maximumGracefulShutdownDuration = .seconds(configuration.server.shutdownTimeout)
        let services = ServiceGroup(configuration: group)
        let drainTime = configuration.server.drainTime
        do {
            try await withThrowingDiscardingTaskGroup { tasks in
                tasks.addTask {
                    await Self.drainOnTerminate(services, readiness: readiness, seconds: drainTime, logger: logger)
                }
                try await services.run()
                tasks.cancelAll()
            }
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw CommandFailure("cannot listen on \(configuration.server.host):\(configuration.server.port): address already in use")
        }
    }

    /// The first SIGTERM makes `/readyz` answer 503 for `seconds`, so a load balancer stops
    /// sending new work, then closes the event sockets (1001, "going away") and shuts down
    /// gracefully; a second SIGTERM shuts down at once.
    /// How long the shutdown waits for the event sockets to close after draining.
    private static let socketCloseWait = Duration.seconds(1)

    private static func drainOnTerminate(_ services: ServiceGroup, readiness: Readiness, seconds: Int, logger: Logger) async {
        await withDiscardingTaskGroup { tasks in
            for await _ in await UnixSignalsSequence(trapping: .sigterm) {
                if readiness.phase == .draining {
                    await services.triggerGracefulShutdown()
                    return
                }
                readiness.markDraining()
                logger.info("Draining before shutdown", metadata: ["seconds": "\(seconds)"])
                tasks.addTask {
                    try? await Task.sleep(for: .seconds(seconds))
                    readiness.markStopping()
                    await readiness.socketsClosed(within: socketCloseWait)
                    await services.triggerGracefulShutdown()
                }
            }
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
