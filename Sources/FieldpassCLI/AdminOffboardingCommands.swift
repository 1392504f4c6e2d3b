import ArgumentParser
import CommandLineSupport
import Fieldpass
import FieldpassDomain
import Foundation

/// `fieldpass admin disable|enable|devices|revoke-device|reset-identity`: offboarding from the
/// machine, audited with the actor `cli`. They work while the server runs.
extension AdminCommand {
    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Disable a person: every device revoked, no sign-in, refresh or API call."
        )

        @OptionGroup var target: AdminTarget

        func run() async throws {
            try await target.withUser { _, changes, user, caller in
                _ = try await changes.setDisabled(true, userID: user.id, by: caller)
                print("\(user.email) is disabled; all their devices are revoked.")
            }
        }
    }

    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Enable a disabled person; they onboard their devices again.")

        @OptionGroup var target: AdminTarget

        func run() async throws {
            try await target.withUser { _, changes, user, caller in
                do {
                    _ = try await changes.setDisabled(false, userID: user.id, by: caller)
                } catch DirectoryError.activeManagedByScim {
                    throw CommandFailure("\(user.email) is provisioned by the identity provider through SCIM; set them active there")
                }
                print("\(user.email) is enabled.")
            }
        }
    }

    struct Devices: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a person's devices.")

        @OptionGroup var target: AdminTarget

        func run() async throws {
            try await target.withUser { store, _, user, _ in
                for device in try await store.devices(userID: user.id, environmentID: user.environmentID) {
                    print(
                        "\(device.id)  \(device.state.rawValue)  \(device.platform)  \(device.name)"
                            + "  registered \(device.createdAt.formatted(.iso8601))  last seen \(device.lastSeenAt.formatted(.iso8601))"
                    )
                }
            }
        }
    }

    struct RevokeDevice: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke-device", abstract: "Revoke one of a person's devices (a lost or replaced phone)."
        )

        @OptionGroup var target: AdminTarget

        @Argument(help: "The device id (see `fieldpass admin devices`).")
        var deviceID: String

        func run() async throws {
            try await target.withUser { _, changes, user, caller in
                do {
                    try await changes.revokeDevice(id: deviceID, userID: user.id, by: caller)
                } catch DirectoryError.unknownDevice {
                    throw CommandFailure("\(user.email) has no device \(deviceID)")
                }
                print("Device \(deviceID) of \(user.email) is revoked.")
            }
        }
    }

    struct ResetIdentity: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset-identity",
            abstract: "Forget the IdP account a person is bound to; their next sign-in binds anew."
        )

        @OptionGroup var target: AdminTarget

        func run() async throws {
            try await target.withUser { _, changes, user, caller in
                try await changes.resetIdentity(userID: user.id, by: caller)
                print("The IdP identity of \(user.email) is reset.")
            }
        }
    }
}
