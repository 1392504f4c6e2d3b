public import ArgumentParser
public import Fieldpass
import Foundation

/// `fieldpass admin …`: directory changes by an operator on the machine, written to the
/// audit log with the actor `cli`. They work while the server runs.
struct AdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin", abstract: "Manage users and roles from the machine.",
        subcommands: [
            GrantRole.self, Users.self, Devices.self, RevokeDevice.self, Disable.self, Enable.self, ResetIdentity.self,
        ]
    )

    struct GrantRole: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "grant-role",
            abstract: "Give a person a role (admin, manager, worker); creates the user if they never signed in."
        )

        @OptionGroup var options: ConfigOptions

        @Argument(help: "The person's email address.")
        var email: String

        @Argument(help: "admin, manager or worker.")
        var role: Role

        @Option(name: .long, help: "Environment id.")
        var env: String

        func run() async throws {
            let configuration = try options.load()
            guard let environment = configuration.environments.first(where: { $0.id == env }) else {
                throw ValidationError("no environment '\(env)' in \(options.config)")
            }
            guard let address = EmailAddress(email), environment.emailDomains.contains(address.domain) else {
                throw ValidationError("\(email) is not an email address of environment '\(env)'")
            }
            let store = try SQLiteStore(path: configuration.storage.sqlitePath)
            let user = try await store.ensureUser(email: address.value, environmentID: env, now: Date())
            let updated = try await store.setRole(role, userID: user.id, environmentID: env, actor: "cli", now: Date())
            print("\(updated.email) (\(updated.id)) is now \(updated.role.rawValue) in \(env).")
        }
    }

    struct Users: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the users of an environment.")

        @OptionGroup var options: ConfigOptions

        @Option(name: .long, help: "Environment id.")
        var env: String

        func run() async throws {
            let configuration = try options.load()
            let store = try SQLiteStore(path: configuration.storage.sqlitePath)
            for user in try await store.users(environmentID: env) {
                let role = user.role.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
                print("\(user.id)  \(role)  \(user.email)\(user.disabled ? "  (disabled)" : "")")
            }
        }
    }
}

extension Role: ExpressibleByArgument {}
