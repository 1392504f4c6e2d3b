import ArgumentParser
import Fieldpass
import FieldpassStorage
import Logging

/// `fieldpass migrate`: brings the database schema up to date. The server does the same
/// before it listens; this lets an operator do it ahead of a rollout.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "migrate", abstract: "Apply pending database migrations.")

    @OptionGroup var options: ConfigOptions

    func run() async throws {
        let configuration = try options.load()
        let logger = Logger(label: "fieldpass")
        let pending = try await StoreFactory.pendingMigrations(configuration.storage, logger: logger)
        try await StoreFactory.migrate(configuration.storage, logger: logger)
        print(pending.isEmpty ? "The database is up to date." : "Applied: \(pending.joined(separator: ", ")).")
    }
}
