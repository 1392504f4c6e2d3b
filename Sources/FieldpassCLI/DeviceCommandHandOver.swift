import ArgumentParser
import CommandLineSupport
import Foundation

/// `fieldpass onboard …` and `fieldpass tablet …`: run by `fieldpass-device`, the binary beside
/// this one (see `FieldpassDeviceCommand`), which takes this process's place with the same
/// arguments, `--help` included.
enum DeviceCommandHandOver {
    /// Replaces this process with `fieldpass-device` when `arguments` start with one of its
    /// commands; returns when they do not.
    static func run(_ arguments: [String]) throws {
        guard arguments.count > 1, DeviceCommandName.all.contains(where: { $0.name == arguments[1] }) else { return }
        guard let folder = Bundle.main.executableURL?.deletingLastPathComponent() else {
            throw CommandFailure("cannot tell where fieldpass runs from, to find fieldpass-device beside it")
        }
        let tool = folder.appendingPathComponent("fieldpass-device").path
        let argv = (["fieldpass-device"] + arguments.dropFirst()).map { strdup($0) } + [nil]
        execv(tool, argv)
        throw CommandFailure(
            "cannot run \(tool): \(String(cString: strerror(errno))); it is built beside fieldpass (swift build builds both)")
    }

    /// `onboard` in `fieldpass --help`; never run, since its command line is handed over first.
    struct Onboard: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: DeviceCommandName.onboard.name, abstract: DeviceCommandName.onboard.abstract)
    }

    /// `tablet` in `fieldpass --help`, as `Onboard` is.
    struct Tablet: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: DeviceCommandName.tablet.name, abstract: DeviceCommandName.tablet.abstract)
    }
}
