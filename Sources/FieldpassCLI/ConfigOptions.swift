import ArgumentParser
import Fieldpass

/// `--config PATH`, shared by every command that touches the store or the keys.
struct ConfigOptions: ParsableArguments {
    @Option(name: .long, help: "Path of the YAML configuration file.")
    var config = "Config/fieldpass.yaml"

    func load() throws -> FieldpassConfiguration {
        do {
            return try FieldpassConfiguration.load(path: config)
        } catch {
            throw ValidationError("configuration \(config): \(error)")
        }
    }
}
