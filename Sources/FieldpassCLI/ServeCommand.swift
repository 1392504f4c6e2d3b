public import ArgumentParser
import Fieldpass
import Hummingbird
public import Logging

/// `fieldpass serve`: runs the service until SIGINT/SIGTERM.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "serve", abstract: "Run the Fieldpass service.")

    @OptionGroup var options: ConfigOptions

    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .info

    func run() async throws {
        let configuration = try options.load()
        for environment in configuration.environments where environment.idp.clientSecret == nil {
            throw ValidationError(
                "environments.\(environment.id).idp.client_secret_env: set the environment variable \(environment.idp.clientSecretVariable)"
            )
        }
        let level = logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "fieldpass")
        try await StoreFactory.migrate(configuration.storage, logger: logger)
        let app = try await buildApplication(configuration: configuration, logger: logger)
        logger.info("Fieldpass listening", metadata: ["public_url": "\(configuration.server.publicURL)"])
        try await app.runService()
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
