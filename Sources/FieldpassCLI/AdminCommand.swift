public import ArgumentParser
import CommandLineSupport
import Fieldpass
public import FieldpassDomain
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

        @Option(name: .long, help: "Environment id (default: the configuration's only environment).")
        var env: String?

        func run() async throws {
            let configuration = try options.load()
            let environment = try options.environment(env, in: configuration)
            guard let address = EmailAddress(email), environment.emailDomains.contains(address.domain) else {
                throw CommandFailure("\(email) is not an email address of environment '\(environment.id)'")
            }
            let (caller, role) = (DirectoryCaller.cli(environmentID: environment.id), role)
            let updated = try await options.withStore { configuration, store in
                let changes = configuration.directoryChanges(store)
                do {
                    return try await changes.setRole(role, email: address.value, by: caller)
                } catch DirectoryError.roleManagedByIdP {
                    throw CommandFailure(
                        "roles in environment '\(caller.environmentID)' come from the identity provider at every sign-in (roles_from_idp); change \(address.value)'s role there"
                    )
                }
            }
            print("\(updated.email) (\(updated.id)) is now \(updated.role.rawValue) in \(environment.id).")
        }
    }

    struct Users: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the users of an environment.")

        @OptionGroup var options: ConfigOptions

        @Option(name: .long, help: "Environment id (default: the configuration's only environment).")
        var env: String?

        func run() async throws {
            let (env, options) = (env, options)
            let users = try await options.withStore { configuration, store in
                try await store.users(environmentID: options.environment(env, in: configuration).id)
            }
            for user in users {
                let role = user.role.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
                print("\(user.id)  \(role)  \(user.email)\(user.disabled ? "  (disabled)" : "")")
            }
        }
    }
}

extension Role: ExpressibleByArgument {}
