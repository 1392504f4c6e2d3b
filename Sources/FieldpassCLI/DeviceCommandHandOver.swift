import ArgumentParser
import CommandLineSupport
import Foundation

/// `fieldpass onboard …` and `fieldpass tablet …`: run by `fieldpass-device`, the binary beside
/// this one (see `FieldpassDeviceCommand`), which takes this process's place with the same
/// arguments, `--help` included.
enum DeviceCommandHandOver {
    /// Replaces this process with `fieldpass-device` when `arguments` start with one of its
    /// commands, or ask `help` for one (`fieldpass help tablet sign-in`); returns otherwise.
    static func run(_ arguments: [String]) throws {
        guard let handedOver = handedOver(Array(arguments.dropFirst())) else { return }
        guard let folder = Bundle.main.executableURL?.deletingLastPathComponent() else {
            throw CommandFailure("cannot tell where fieldpass runs from, to find fieldpass-device beside it")
        }
        let tool = folder.appendingPathComponent("fieldpass-device").path
        let argv = (["fieldpass-device"] + handedOver).map { strdup($0) } + [nil]
        execv(tool, argv)
        throw CommandFailure(
            "cannot run \(tool): \(String(cString: strerror(errno))); it is built beside fieldpass (swift build builds both)")
    }

    /// The arguments `fieldpass-device` is given for `arguments` (the command line after
    /// `fieldpass`), or `nil` when they are not for it.
    private static func handedOver(_ arguments: [String]) -> [String]? {
        func isDeviceCommand(_ word: String?) -> Bool { DeviceCommandName.all.contains { $0.name == word } }
        if isDeviceCommand(arguments.first) { return arguments }
        if arguments.first == "help", isDeviceCommand(arguments.dropFirst().first) { return Array(arguments.dropFirst()) + ["--help"] }
        return nil
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
