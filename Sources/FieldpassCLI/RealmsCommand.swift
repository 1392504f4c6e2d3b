import ArgumentParser
import CommandLineSupport
import Fieldpass
import FieldpassDomain
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

        @Argument(help: "Realm path as devices see it, e.g. /users/<user id> (with the environment's realm_prefix, if any).")
        var path: String

        func run() async throws {
            let path = path
            let marked = try await options.withStore { configuration, store in
                // A prefixed path names its environment; a plain one is found in whichever has it.
                let (environmentID, stored) = configuration.realmPrefixes.resolve(path)
                return try await store.markRealmInitialized(path: stored, environmentID: environmentID, now: Date())
            }
            guard let marked else { throw CommandFailure("no realm \(path)") }
            if marked.wasInitialized && marked.events.isEmpty {
                print("Realm \(path) was initialized already; nothing changed.")
            } else {
                print("Realm \(path) initialized; data_ready sent to \(marked.events.count) waiting session(s).")
            }
        }
    }
}
