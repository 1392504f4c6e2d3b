public import ArgumentParser
import Foundation
public import Tokens

/// `fieldpass keys generate`: adds a signing key to `tokens.keys_dir`; the newest key signs.
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "Manage token signing keys.", subcommands: [Generate.self]
    )

    struct Generate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Generate a new signing key; it signs from the next start.")

        @OptionGroup var options: ConfigOptions

        @Option(name: .long, help: "ES256 (default) or RS256.")
        var alg: SigningAlgorithm = .es256

        func run() async throws {
            let configuration = try options.load()
            let folder = URL(fileURLWithPath: configuration.tokens.keysDirectory)
            let (key, file) = try KeyRing.generateKey(alg, in: folder)
            print("Generated \(key.algorithm.rawValue) key \(key.kid) in \(file.path)")
        }
    }
}

extension SigningAlgorithm: ExpressibleByArgument {}
