import ArgumentParser
import CommandLineSupport
import FieldpassDevice
import Foundation

/// The tablet without a network: a worker takes it over with badge and PIN against the offline
/// permit their last online sign-in on it left (`shared_devices.offline_permit_ttl`), and, back
/// online, the tablet reports what happened.
extension TabletCommand.SignIn {
    /// Checked on the tablet alone: no call leaves it. A new PIN is set online only.
    func signInOffline(_ tablet: SharedDevice) async throws {
        guard newPin == nil else { throw CommandFailure("--new-pin needs the network: sign in online to change a PIN") }
        do {
            let shift = try await tablet.signInOffline(badge: badge, pin: pin)
            Console.line(
                "Offline shift started: \(shift.email) holds the tablet without a network (permit \(shift.permitID)), as role \(shift.role)."
            )
            Console.line("No token until the tablet reports it: fieldpass tablet report, once the network is back.")
        } catch OfflineSignInError.noPermit {
            throw CommandFailure("no offline permit on this tablet for that badge: the worker signs in online here first")
        } catch OfflineSignInError.wrongPin(let attemptsLeft) {
            throw CommandFailure("wrong PIN: \(attemptsLeft) more wrong PINs lock the permit on this tablet")
        } catch OfflineSignInError.locked {
            throw CommandFailure("the permit is locked on this tablet after too many wrong PINs: sign in online")
        } catch OfflineSignInError.expired {
            throw CommandFailure("the worker's offline permit expired: sign in online")
        } catch OfflineSignInError.notThisDevice, OfflineSignInError.invalidPermit {
            throw CommandFailure("the permit kept for that badge is not valid on this tablet: sign in online")
        }
    }
}

extension TabletCommand {
    struct Report: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Back online: report the shifts the tablet ran without a network; the running one, accepted, goes on as a real shift.")

        @OptionGroup var options: TabletOptions

        func run() async throws {
            let (tablet, server) = try await options.tablet()
            do {
                let reconciled = try await tablet.reconcileOfflineShifts()
                try await tablet.refreshOfflinePermits()
                guard !reconciled.shifts.isEmpty else {
                    Console.line("Nothing to report: no shift ran offline since the last report.")
                    return
                }
                for reported in reconciled.shifts {
                    let whose = "\(reported.shift.email)'s offline shift from \(reported.shift.startedAt.formatted(.iso8601))"
                    switch reported.verdict {
                    case .accepted(let shiftID) where reported.wasRunning && reported.tokensAdopted:
                        Console.line("\(whose): accepted, and it goes on as shift \(shiftID), its tokens kept in \(options.tokensPath).")
                    case .accepted(let shiftID):
                        Console.line("\(whose): accepted, on record as shift \(shiftID).")
                    case .refused(let reason):
                        Console.line("\(whose): refused (\(reason.code)); it is over: wipe what its worker left.")
                    }
                }
            } catch {
                throw options.failure(error, server: server)
            }
        }
    }
}
