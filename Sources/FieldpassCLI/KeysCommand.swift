public import ArgumentParser
import CommandLineSupport
import Fieldpass
import Foundation
public import Tokens

/// `fieldpass keys rotate|list`: the signing keys in `tokens.keys_dir`.
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "Manage token signing keys.", subcommands: [Rotate.self, List.self]
    )

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a signing key: published at once, it signs after tokens.key_publish_delay.",
            aliases: ["generate"]
        )

        @OptionGroup var options: ConfigOptions

        @Option(name: .long, help: "ES256 (default) or RS256.")
        var alg: SigningAlgorithm = .es256

        func run() async throws {
            let configuration = try options.load()
            let folder = URL(fileURLWithPath: configuration.tokens.keysDirectory)
            let (key, file) = try KeyRing.generateKey(alg, in: folder)
            print("Added \(key.algorithm.rawValue) key \(key.kid) in \(file.path)")
            if let entry = try KeysCommand.schedule(configuration).entries(at: Date()).first(where: { $0.key.kid == key.kid }),
                entry.state == .next,
                let signsFrom = entry.signsFrom
            {
                print(
                    "Running servers publish it at their next reload (SIGHUP, or within a minute); it signs from \(Self.format(signsFrom))."
                )
            } else {
                print("It signs from now on; running servers pick it up at their next reload (SIGHUP, or within a minute).")
            }
        }

        static func format(_ date: Date) -> String {
            date.formatted(.iso8601)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show each key's kid, algorithm, state and dates.")

        @OptionGroup var options: ConfigOptions

        func run() async throws {
            let rows = try KeysCommand.schedule(try options.load()).entries(at: Date()).map { entry in
                [
                    entry.key.kid, entry.key.algorithm.rawValue, entry.state.rawValue,
                    entry.addedAt.map(Rotate.format) ?? "-", entry.signsFrom.map(Rotate.format) ?? "-", entry.fileName ?? "-",
                ]
            }
            Console.table(header: ["KID", "ALG", "STATE", "ADDED", "SIGNS FROM", "FILE"], rows: rows)
        }
    }
}

extension KeysCommand {
    /// The schedule of the configured keys folder, as a server reading it now would see it.
    static func schedule(_ configuration: FieldpassConfiguration) throws -> KeySchedule {
        KeySchedule(
            files: try KeyFile.readAll(in: URL(fileURLWithPath: configuration.tokens.keysDirectory)),
            publishDelay: TimeInterval(configuration.tokens.keyPublishDelay)
        )
    }
}

extension SigningAlgorithm: ExpressibleByArgument {}
