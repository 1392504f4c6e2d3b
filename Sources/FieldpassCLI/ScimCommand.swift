import ArgumentParser
import Tokens

/// `fieldpass scim …`: what connecting an IdP's provisioning needs from the machine.
struct ScimCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scim", abstract: "SCIM 2.0 provisioning.", subcommands: [Token.self]
    )

    struct Token: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a fresh random SCIM token: put it in the variable scim.token_env names, and in the IdP."
        )

        func run() throws {
            // 32 random bytes, base64url: 43 characters, 256 bits.
            print(try Crypto.randomToken(byteCount: 32))
        }
    }
}
