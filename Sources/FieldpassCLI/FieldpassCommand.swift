import ArgumentParser

/// `fieldpass`: the service and the tools around it.
@main
struct FieldpassCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fieldpass",
        abstract: "Device onboarding and authentication for field-service apps.",
        subcommands: [
            ServeCommand.self, MigrateCommand.self, KeysCommand.self, RealmsCommand.self, AdminCommand.self,
            DeviceCommandHandOver.Onboard.self, ScimCommand.self, SharedDevicesCommand.self, BadgesCommand.self,
            DeviceCommandHandOver.Tablet.self,
        ]
    )

    static func main() async {
        do {
            try DeviceCommandHandOver.run(CommandLine.arguments)
        } catch {
            exit(withError: error)
        }
        await main(nil)
    }
}
