import ArgumentParser
import Fieldpass
import FieldpassDomain
import Foundation

/// `fieldpass shared-devices …`: devices a crew shares, from the machine (audited as `cli`).
struct SharedDevicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shared-devices", abstract: "Devices a crew shares: enroll them, list them with who holds them, end a shift.",
        subcommands: [Enroll.self, List.self, EndShift.self]
    )

    struct Enroll: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Enroll a shared device: prints its one-time enrollment code, which the device redeems with its key."
        )

        @OptionGroup var options: ConfigOptions

        @Option(name: .long, help: "The device's name, such as \"Van 12\".")
        var name: String

        @Option(name: .long, help: "The id of the team whose manager looks after it.")
        var team: String?

        @Option(name: .long, help: "Environment id (default: the configuration's only environment).")
        var env: String?

        func run() async throws {
            guard let name = PrintableName.normalized(name) else {
                throw CommandFailure("--name must be 1 to 100 printable characters")
            }
            let (env, team, options) = (env, team, options)
            let enrollment = try await options.withStore { configuration, store in
                let caller = DirectoryCaller.cli(environmentID: try options.environment(env, in: configuration).id)
                do {
                    return try await configuration.directoryChanges(store).startSharedDeviceEnrollment(
                        name: name, teamID: team, settings: configuration.sharedDevices, by: caller)
                } catch DirectoryError.unknownTeam {
                    throw CommandFailure("no team \(team ?? "") in environment '\(caller.environmentID)'")
                }
            }
            let device = enrollment.device
            print("\(device.name) (\(device.id)) awaits enrollment until \(device.enrollmentExpiresAt.formatted(.iso8601)).")
            print("Enrollment code, shown this once: \(enrollment.code)")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List an environment's shared devices, oldest first, with who holds each now.")

        @OptionGroup var options: ConfigOptions

        @Option(name: .long, help: "Environment id (default: the configuration's only environment).")
        var env: String?

        func run() async throws {
            let (env, options) = (env, options)
            let devices = try await options.withStore { configuration, store in
                try await store.sharedDevices(visibleTo: .cli(environmentID: try options.environment(env, in: configuration).id))
            }
            for device in devices {
                let state = device.state.rawValue.padding(toLength: 19, withPad: " ", startingAt: 0)
                let holder = device.holder.map { "  held by \($0.email) since \($0.startedAt.formatted(.iso8601))" } ?? ""
                print("\(device.id)  \(state)  \(device.name)\(device.teamID.map { "  (team \($0))" } ?? "")\(holder)")
            }
        }
    }

    struct EndShift: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "end-shift", abstract: "End the shift on a shared device: its worker's tokens stop working at once.")

        @OptionGroup var options: ConfigOptions

        @Argument(help: "The shared device's id.")
        var deviceID: String

        @Option(name: .long, help: "Environment id (default: the configuration's only environment).")
        var env: String?

        func run() async throws {
            let (env, deviceID, options) = (env, deviceID, options)
            let ended = try await options.withStore { configuration, store in
                let caller = DirectoryCaller.cli(environmentID: try options.environment(env, in: configuration).id)
                do {
                    return try await configuration.directoryChanges(store).endShift(deviceID: deviceID, by: caller)
                } catch DirectoryError.unknownDevice {
                    throw CommandFailure("no shared device \(deviceID) in environment '\(caller.environmentID)'")
                }
            }
            guard let ended else { throw CommandFailure("nobody holds shared device \(deviceID): no shift to end") }
            print("Ended the shift of \(ended.email) (\(ended.id)), started \(ended.startedAt.formatted(.iso8601)).")
        }
    }
}
