import ArgumentParser
import CommandLineSupport
import Fieldpass
import FieldpassDomain
import FieldpassStorage
import Logging

/// `--config PATH`, shared by every command that touches the store or the keys.
struct ConfigOptions: ParsableArguments {
    @Option(name: .long, help: "Path of the YAML configuration file.")
    var config = "Config/fieldpass.yaml"

    func load() throws -> FieldpassConfiguration {
        do {
            return try FieldpassConfiguration.load(path: config)
        } catch {
            throw CommandFailure("configuration \(config): \(error)")
        }
    }

    /// The environment `id` of `configuration`, or a failure naming the known ones.
    /// The environment `--env` names; without it, the configuration's only one.
    func environment(_ id: String?, in configuration: FieldpassConfiguration) throws -> EnvironmentSettings {
        let known = configuration.environments.map { "'\($0.id)'" }.joined(separator: ", ")
        guard let id else {
            guard configuration.environments.count == 1, let only = configuration.environments.first else {
                throw CommandFailure("\(config) has several environments (\(known)): name one with --env")
            }
            return only
        }
        guard let environment = configuration.environments.first(where: { $0.id == id }) else {
            throw CommandFailure("no environment '\(id)' in \(config); known: \(known)")
        }
        return environment
    }

    /// Runs `body` with the configured store. A database whose schema is behind this
    /// version is refused: `fieldpass migrate` (or the server's start) brings it up to date.
    func withStore<T: Sendable>(
        _ body: @Sendable (FieldpassConfiguration, any FieldpassStore) async throws -> T
    ) async throws -> T {
        let configuration = try load()
        let logger = Logger(label: "fieldpass")
        let pending = try await StoreFactory.pendingMigrations(configuration.storage, logger: logger)
        guard pending.isEmpty else {
            throw CommandFailure(
                "the database is not up to date (pending: \(pending.joined(separator: ", "))); run `fieldpass migrate --config \(config)`"
            )
        }
        return try await StoreFactory.open(configuration.storage, realmPrefixes: configuration.realmPrefixes, logger: logger).use { store in
            try await body(configuration, store)
        }
    }
}

extension FieldpassConfiguration {
    /// The directory's one way of changing people, over `store`, for the CLI's commands.
    func directoryChanges(_ store: any FieldpassStore) -> DirectoryChanges {
        DirectoryChanges(store: store, claimMappings: ClaimMappingDirectory(environments: environments))
    }
}
