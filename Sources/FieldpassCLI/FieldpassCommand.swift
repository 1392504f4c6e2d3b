import ArgumentParser

/// `fieldpass`: the service and the tools around it.
@main
struct FieldpassCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fieldpass",
        abstract: "Device onboarding and authentication for field-service apps.",
        subcommands: [
            ServeCommand.self, MigrateCommand.self, KeysCommand.self, RealmsCommand.self, AdminCommand.self, OnboardCommand.self,
            ScimCommand.self, SharedDevicesCommand.self, BadgesCommand.self, TabletCommand.self,
        ]
    )
}
