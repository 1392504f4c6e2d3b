import ArgumentParser
import NIOCore
import NIOPosix

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
        // Tasks run on NIO's event loops, which hold the HTTP and PostgreSQL channels: an await
        // on a channel resumes where the channel is, not after a wake-up of Swift's own pool.
        NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        await main(nil)
    }
}
