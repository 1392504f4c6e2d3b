import ArgumentParser

/// `fieldpass-device`: the commands of `fieldpass` that play a device, which `fieldpass` hands
/// over to this binary beside it. They are built on the app library, whose URLSession brings
/// libcurl with its TLS, Kerberos and LDAP libraries: kept out of `fieldpass`, the server never
/// maps them. Its name in help is `fieldpass`, the command people type.
@main
struct FieldpassDeviceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fieldpass",
        abstract: "The device commands of fieldpass, run through it: fieldpass onboard, fieldpass tablet.",
        subcommands: [OnboardCommand.self, TabletCommand.self]
    )
}
