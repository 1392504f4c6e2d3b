import ArgumentParser
import CommandLineSupport
import Fieldpass
import FieldpassDomain

/// `DEVICE_ID [--env ENV]`: the shared device a `shared-devices` command acts on.
struct SharedDeviceTarget: ParsableArguments {
    @Argument(help: "The shared device's id, as `fieldpass shared-devices list` shows it.")
    var deviceID: String

    @OptionGroup var options: ConfigOptions

    @Option(name: .long, help: "Environment id (default: the configuration's only environment).")
    var env: String?

    /// Runs `body` with the store, the directory's changes and the CLI as the directory names it
    /// (audited as `cli`), or fails naming the device when the environment has none with its id.
    func withDevice<T: Sendable>(
        _ body: @Sendable (any FieldpassStore, DirectoryChanges, DirectoryCaller) async throws -> T
    ) async throws -> T {
        let (env, deviceID, options) = (env, deviceID, options)
        return try await options.withStore { configuration, store in
            let caller = DirectoryCaller.cli(environmentID: try options.environment(env, in: configuration).id)
            do {
                return try await body(store, configuration.directoryChanges(store), caller)
            } catch DirectoryError.unknownDevice {
                throw CommandFailure("no shared device \(deviceID) in environment '\(caller.environmentID)'")
            }
        }
    }
}
