import ArgumentParser
import Fieldpass
import Foundation

/// `fieldpass realms mark-initialized PATH`: what a backend integration does when a realm is filled.
struct RealmsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "realms", abstract: "Manage realms.", subcommands: [MarkInitialized.self]
    )

    struct MarkInitialized: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "mark-initialized",
            abstract: "Mark a realm initialized; waiting devices get data_ready."
        )

        @OptionGroup var options: ConfigOptions

        @Argument(help: "Realm path, e.g. /users/<user id>.")
        var path: String

        func run() async throws {
            let path = path
            let events = try await options.withStore { _, store in
                try await store.markRealmInitialized(path: path, environmentID: nil, now: Date())
            }
            guard let events else { throw CommandFailure("no realm \(path)") }
            print("Realm \(path) initialized; data_ready sent to \(events.count) waiting session(s).")
        }
    }
}
