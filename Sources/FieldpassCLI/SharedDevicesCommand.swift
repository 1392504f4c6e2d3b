import ArgumentParser
import CommandLineSupport
import Fieldpass
import FieldpassDomain
import Foundation

/// `fieldpass shared-devices …`: devices a crew shares, from the machine (audited as `cli`).
struct SharedDevicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shared-devices",
        abstract:
            "Devices a crew shares: enroll them, list them with who holds them, their offline permits and shifts, end a shift, unenroll them.",
        subcommands: [Enroll.self, List.self, Offline.self, EndShift.self, Unenroll.self]
    )

    struct Enroll: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Enroll a shared device: prints its one-time enrollment code, which the device redeems with its key."
        )

        @OptionGroup var options: ConfigOptions

        @Option(name: .long, help: "The device's name, such as \"Van 12\".")
        var name: String

        @Option(name: .long, help: "The team whose manager looks after it: its name or its id.")
        var team: String?

        @Option(name: .long, help: "Environment id (default: the configuration's only environment).")
        var env: String?

        func run() async throws {
            guard let name = PrintableName.normalized(name) else {
                throw CommandFailure("--name must be 1 to 100 printable characters")
            }
            let (env, team, options) = (env, team, options)
            let (enrollment, teamName) = try await options.withStore { configuration, store in
                let caller = DirectoryCaller.cli(environmentID: try options.environment(env, in: configuration).id)
                let unknown = CommandFailure("no team \(team ?? "") in environment '\(caller.environmentID)'")
                var found: TeamRecord?
                if let team {
                    guard let named = try await store.team(named: team, environmentID: caller.environmentID) else { throw unknown }
                    found = named
                }
                do {
                    let enrollment = try await configuration.directoryChanges(store).startSharedDeviceEnrollment(
                        name: name, teamID: found?.id, settings: configuration.sharedDevices, by: caller)
                    return (enrollment, found?.name)
                } catch DirectoryError.unknownTeam {
                    throw unknown
                } catch DirectoryError.sharedDeviceNameTaken {
                    throw CommandFailure(
                        "a shared device named \"\(name)\" is enrolled, or awaits enrollment, in environment '\(caller.environmentID)' "
                            + "already: choose another name, or unenroll that device first (shared-devices list, shared-devices unenroll)")
                }
            }
            let device = enrollment.device
            let ofTeam = teamName.map { " of team \($0)" } ?? ""
            print("\(device.name) (\(device.id))\(ofTeam) awaits enrollment until \(device.enrollmentExpiresAt.formatted(.iso8601)).")
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
            let (devices, teams) = try await options.withStore { configuration, store in
                let environmentID = try options.environment(env, in: configuration).id
                return (
                    try await store.sharedDevices(visibleTo: .cli(environmentID: environmentID)),
                    try await store.teamNames(environmentID: environmentID)
                )
            }
            for device in devices {
                let state = device.state.rawValue.padding(toLength: 19, withPad: " ", startingAt: 0)
                let team = device.teamID.map { "  (team \(teams[$0] ?? $0))" } ?? ""
                let holder = device.holder.map { "  held by \($0.email) since \($0.startedAt.formatted(.iso8601))" } ?? ""
                print("\(device.id)  \(state)  \(device.name)\(team)\(holder)")
            }
        }
    }

    struct Offline: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Whose offline permits a shared device holds, until when, and the shifts it reported from offline.")

        @OptionGroup var device: SharedDeviceTarget

        func run() async throws {
            let deviceID = device.deviceID
            let (permits, shifts) = try await device.withDevice { store, _, caller in
                guard let permits = try await store.offlinePermitHolders(deviceID: deviceID, visibleTo: caller, now: Date()),
                    let shifts = try await store.shifts(deviceID: deviceID, visibleTo: caller, limit: 100)
                else { throw DirectoryError.unknownDevice }
                return (permits, shifts.filter { $0.offlinePermitID != nil })
            }
            print("Offline permits (who may start a shift on it without a network): \(permits.isEmpty ? "none" : "")")
            for holder in permits {
                let withdrawn = holder.permit.withdrawnAt == nil ? "" : "  (badge revoked or replaced: refused when reported)"
                print("  \(holder.email) (\(holder.permit.userID))  until \(holder.permit.expiresAt.formatted(.iso8601))\(withdrawn)")
            }
            print("Shifts reported from offline: \(shifts.isEmpty ? "none" : "")")
            for shift in shifts {
                let end = shift.endedAt.map { "to \($0.formatted(.iso8601)) (\(shift.endReason?.rawValue ?? "?"))" } ?? "still on shift"
                print("  \(shift.email)  from \(shift.startedAt.formatted(.iso8601)) \(end)  \(shift.id)")
            }
        }
    }

    struct EndShift: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "end-shift", abstract: "End the shift on a shared device: its worker's tokens stop working at once.")

        @OptionGroup var device: SharedDeviceTarget

        func run() async throws {
            let deviceID = device.deviceID
            let ended = try await device.withDevice { _, changes, caller in try await changes.endShift(deviceID: deviceID, by: caller) }
            guard let ended else { throw CommandFailure("nobody holds shared device \(deviceID): no shift to end") }
            print("Ended the shift of \(ended.email) (\(ended.id)), started \(ended.startedAt.formatted(.iso8601)).")
        }
    }

    struct Unenroll: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Unenroll a shared device: its key (or its code) is refused from then on, and the shift on it ends.")

        @OptionGroup var device: SharedDeviceTarget

        func run() async throws {
            let deviceID = device.deviceID
            // Read first, to say what unenrolling it ended.
            let (before, permits) = try await device.withDevice { store, changes, caller in
                guard let before = try await store.sharedDevice(id: deviceID, visibleTo: caller),
                    let permits = try await store.offlinePermitHolders(deviceID: deviceID, visibleTo: caller, now: Date())
                else { throw DirectoryError.unknownDevice }
                try await changes.unenrollSharedDevice(id: deviceID, by: caller)
                return (before, permits)
            }
            switch before.state {
            case .unenrolled:
                print("\(before.name) (\(before.id)) was unenrolled already, at \(before.unenrolledAt?.formatted(.iso8601) ?? "?").")
            case .awaitingEnrollment:
                print("Unenrolled \(before.name) (\(before.id)): its enrollment code no longer works.")
            case .enrolled:
                print("Unenrolled \(before.name) (\(before.id)): its key is refused from then on.")
                if let holder = before.holder { print("The shift of \(holder.email) ended with it (unenrolled).") }
            }
            guard !permits.isEmpty else { return }
            // A lost device keeps its permits until they expire: the PINs they open are what to change.
            print("It holds offline permits until they expire. If it is lost, reset these PINs:")
            for holder in permits { print("  fieldpass badges reset-pin \(holder.email)") }
        }
    }
}
