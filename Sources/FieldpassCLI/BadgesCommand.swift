import ArgumentParser
import Fieldpass
import FieldpassDomain
import Foundation

/// `fieldpass badges …`: badges for signing in on shared devices, from the machine (audited as `cli`).
struct BadgesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "badges", abstract: "Badges for signing in on shared devices: issue and revoke them.",
        subcommands: [Issue.self, Revoke.self]
    )

    struct Issue: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Issue a badge (replacing the person's), or one for each member of a team as a printable sheet of cards.")

        @OptionGroup var options: ConfigOptions

        @Argument(help: "The person's email.")
        var email: String?

        @Option(name: .long, help: "Issue a badge for every member of this team instead.")
        var team: String?

        @Option(name: .long, help: "Where to write the cards as an SVG sheet (with --team: required).")
        var out: String?

        @Option(name: .long, help: "Environment id (default: the configuration's only environment).")
        var env: String?

        func validate() throws {
            guard (email == nil) != (team == nil) else { throw ValidationError("Give an email or --team, not both.") }
            if team != nil, out == nil { throw ValidationError("--team writes a sheet of cards: give --out FILE.") }
        }

        func run() async throws {
            let (email, team, env, options) = (email, team, env, options)
            // Issuing replaces the cards people hold: find out first that the sheet can be written.
            if let out, !FileManager.default.createFile(atPath: out, contents: nil) {
                throw CommandFailure("cannot write \(out)")
            }
            let issued = try await options.withStore { configuration, store in
                let caller = DirectoryCaller.cli(environmentID: try options.environment(env, in: configuration).id)
                let people = try await Self.people(email: email, team: team, store: store, caller: caller)
                var issued: [(email: String, issue: BadgeIssue)] = []
                let hasher = PinHasher()
                for person in people {
                    issued.append(
                        (
                            person.email,
                            try await configuration.directoryChanges(store).issueBadge(
                                userID: person.id, settings: configuration.badges, hasher: hasher, by: caller)
                        ))
                }
                return issued
            }
            for (email, issue) in issued {
                print(
                    "\(email): badge \(issue.badge.id), temporary PIN \(issue.temporaryPin), valid until \(issue.badge.expiresAt.formatted(.iso8601))"
                )
                if out == nil { print("Badge, shown this once: \(issue.value)") }
            }
            if let out {
                let cards = issued.map { BadgeCardSheet.Card(email: $0.email, badge: $0.issue.value, expiresAt: $0.issue.badge.expiresAt) }
                try Data(try BadgeCardSheet.svg(cards).utf8).write(to: URL(fileURLWithPath: out), options: .atomic)
                print("Cards written to \(out).")
            }
        }

        /// The person with `email`, or the members of `team`.
        private static func people(
            email: String?, team: String?, store: any FieldpassStore, caller: DirectoryCaller
        ) async throws -> [UserRecord] {
            if let team {
                guard let found = try await store.team(id: team, environmentID: caller.environmentID) else {
                    throw CommandFailure("no team \(team) in environment '\(caller.environmentID)'")
                }
                return try await store.people(
                    PeopleQuery(teamID: found.id, limit: max(1, found.members.count)), environmentID: caller.environmentID
                )
                .map(\.user)
            }
            guard let person = try await store.person(email: (email ?? "").lowercased(), environmentID: caller.environmentID) else {
                throw CommandFailure("no person \(email ?? "") in environment '\(caller.environmentID)'")
            }
            return [person]
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a person's badge.")

        @OptionGroup var options: ConfigOptions

        @Argument(help: "The person's email.")
        var email: String

        @Option(name: .long, help: "Environment id (default: the configuration's only environment).")
        var env: String?

        func run() async throws {
            let (email, env, options) = (email, env, options)
            try await options.withStore { configuration, store in
                let caller = DirectoryCaller.cli(environmentID: try options.environment(env, in: configuration).id)
                guard let person = try await store.person(email: email.lowercased(), environmentID: caller.environmentID) else {
                    throw CommandFailure("no person \(email) in environment '\(caller.environmentID)'")
                }
                do {
                    try await configuration.directoryChanges(store).revokeBadge(userID: person.id, by: caller)
                } catch DirectoryError.unknownBadge {
                    throw CommandFailure("\(email) has no badge")
                }
            }
            print("Revoked the badge of \(email).")
        }
    }
}
