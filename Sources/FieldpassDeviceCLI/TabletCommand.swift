import ArgumentParser
import CommandLineSupport
import FieldpassDevice
import Foundation

/// `fieldpass tablet …`: a shared tablet, built on ``SharedDevice`` as a tablet's app is. It
/// enrolls with the code an admin was shown, starts a worker's shift with badge and PIN, follows
/// the shifts as every app on the tablet does, and ends the shift: against `make run`, or any
/// Fieldpass with `--server`. Its key and the shift's tokens stay in `--dir` between commands.
struct TabletCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: DeviceCommandName.tablet.name, abstract: DeviceCommandName.tablet.abstract,
        subcommands: [Enroll.self, SignIn.self, Report.self, Status.self, Events.self, EndShift.self]
    )

    struct Enroll: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Enroll the tablet with the one-time code an admin was shown (fieldpass shared-devices enroll).")

        @OptionGroup var options: TabletOptions

        @Argument(help: "The enrollment code, as shown (case, spaces and dashes do not matter).")
        var code: String

        func run() async throws {
            let server = try options.serverURL()
            do {
                try await startOver(server: server)
                let key = try await options.key()
                let identity = try await SharedDevice(server: server, key: key).enroll(code: code)
                Console.line("Enrolled: this tablet is shared device \(identity.deviceID) of environment \(identity.environment).")
                Console.line("Its key, its identity from now on (thumbprint \(try key.thumbprint)), is kept in \(options.keyPath).")
            } catch FieldpassClientError.server(400, "invalid_grant", _) {
                throw CommandFailure(
                    "the code was refused: wrong, used or expired. Ask for a new one (fieldpass shared-devices enroll --name NAME)")
            } catch {
                throw options.failure(error, server: server)
            }
        }

        /// A folder holding an enrolled tablet is left alone; one whose key is no enrolled
        /// device's (unenrolled, or a code refused before) starts over with a new key, since a
        /// key enrolls one device, ever.
        private func startOver(server: URL) async throws {
            guard FileManager.default.fileExists(atPath: options.keyPath) else { return }
            let (tablet, _) = try await options.tablet()
            do {
                _ = try await tablet.currentShift
            } catch FieldpassClientError.notEnrolled {
                // The library forgot the shift's tokens already.
                try FileManager.default.removeItem(atPath: options.keyPath)
                return
            }
            throw CommandFailure(
                "the tablet in \(options.folder) is enrolled already at \(server.absoluteString): unenroll it first (fieldpass shared-devices unenroll ID), or keep another tablet with --dir"
            )
        }
    }

    struct SignIn: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sign-in",
            abstract: "A worker starts a shift on the tablet with their badge and PIN (the first time, the temporary PIN and --new-pin).")

        @OptionGroup var options: TabletOptions

        @Option(name: .long, help: "The badge, as scanned off the card (fpb_…), or as fieldpass badges issue printed it.")
        var badge: String

        @Option(name: .long, help: "The worker's PIN, or the temporary one an admin was given.")
        var pin: String

        @Option(name: .long, help: "With the temporary PIN: the worker's own PIN from now on.")
        var newPin: String?

        @Flag(
            name: .long,
            help:
                "Without the network: checked on the tablet against the worker's offline permit, reported later (fieldpass tablet report).")
        var offline = false

        func run() async throws {
            let (tablet, server) = try await options.tablet()
            if offline { return try await signInOffline(tablet) }
            do {
                let before = try await tablet.currentShift
                _ = try await tablet.signIn(badge: badge, pin: pin, newPin: newPin)
                guard let shift = try await tablet.currentShift else { throw CommandFailure("the shift ended as it started") }
                let pinNote = newPin == nil ? "" : "; the new PIN is theirs from now on"
                Console.line("Shift started: \(shift.email) holds the tablet (shift \(shift.shiftID))\(pinNote).")
                Console.line("The shift's tokens, bound to the tablet's key, are kept in \(options.tokensPath).")
                // The shift before, if its worker forgot to sign out, ended as this one started.
                try await ShiftChangeLines.heard(
                    on: tablet,
                    matching: { $0.shiftID == shift.shiftID || ($0.shiftID == before?.shiftID && $0.kind != .shiftStarted) },
                    through: { $0.shiftID == shift.shiftID })
            } catch BadgeSignInError.pinChangeRequired {
                throw CommandFailure("that is the temporary PIN an admin was given: choose a PIN of your own and give it with --new-pin")
            } catch BadgeSignInError.wrongPin(let attemptsLeft) {
                throw CommandFailure("wrong PIN: \(attemptsLeft) more wrong PINs lock the badge")
            } catch BadgeSignInError.badgeLocked {
                throw CommandFailure("the badge is locked after too many wrong PINs: an admin (or the team's manager) resets its PIN")
            } catch FieldpassClientError.server(401, "invalid_grant", _) {
                throw CommandFailure(
                    "the badge was refused: unknown, revoked, replaced or expired. Ask for a new one (fieldpass badges issue EMAIL)")
            } catch BadgeSignInError.newPinRefused(let rule, let length) {
                throw CommandFailure(
                    "the new PIN breaks a rule (\(rule.rawValue)): \(length) digits, not one digit repeated, not a run up or down")
            } catch FieldpassClientError.server(400, "invalid_request", let description) {
                throw CommandFailure(description ?? "the badge or the PIN was refused")
            } catch {
                throw options.failure(error, server: server)
            }
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Say who holds the tablet now.")

        @OptionGroup var options: TabletOptions

        func run() async throws {
            let (tablet, server) = try await options.tablet()
            do {
                if let offline = try tablet.currentOfflineShift {
                    Console.line(
                        "\(offline.email) holds the tablet offline since \(offline.startedAt.formatted(.iso8601)) (not reported yet).")
                } else if let shift = try await tablet.currentShift {
                    Console.line("\(shift.email) holds the tablet since \(shift.startedAt.formatted(.iso8601)) (shift \(shift.shiftID)).")
                } else {
                    Console.line("Nobody holds the tablet.")
                }
            } catch {
                throw options.failure(error, server: server)
            }
        }
    }

    struct Events: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Follow the tablet's shifts as every app on it does: each start and end, as it happens, until the tablet is unenrolled.")

        @OptionGroup var options: TabletOptions

        @Option(name: .long, help: "Start after this change (0: from the first).")
        var after = 0

        func run() async throws {
            let (tablet, server) = try await options.tablet()
            do {
                for try await change in tablet.changes(after: after) {
                    Console.line(ShiftChangeLines.line(change))
                }
            } catch FieldpassClientError.notEnrolled {
                Console.line("The tablet was unenrolled: its key is refused from now on. Wipe it, and enroll it again with a new code.")
            } catch {
                throw options.failure(error, server: server)
            }
        }
    }

    struct EndShift: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "end-shift", abstract: "The worker signs out: the shift ends, and its tokens with it.")

        @OptionGroup var options: TabletOptions

        func run() async throws {
            let (tablet, server) = try await options.tablet()
            do {
                guard let shift = try await tablet.currentShift else {
                    Console.line("Nobody holds the tablet: no shift to end.")
                    return
                }
                try await tablet.endShift()
                Console.line(
                    "Ended the shift of \(shift.email) (shift \(shift.shiftID)): its tokens are refused from now on, and forgotten here.")
                try await ShiftChangeLines.heard(
                    on: tablet, matching: { $0.shiftID == shift.shiftID && $0.kind != .shiftStarted }, through: { _ in true })
            } catch {
                throw options.failure(error, server: server)
            }
        }
    }
}
