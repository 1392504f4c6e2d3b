import ArgumentParser
import CommandLineSupport
import Fieldpass
import FieldpassDomain
import Foundation

/// `fieldpass badges …`: badges for signing in on shared devices, from the machine (audited as `cli`).
struct BadgesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "badges", abstract: "Badges for signing in on shared devices: issue them, reset their PINs, revoke them.",
        subcommands: [Issue.self, ResetPin.self, Revoke.self]
    )

    struct Issue: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Issue a badge, or one for each member of a team as printable pages of cards.",
            discussion: """
                A person who holds a live badge keeps it unless you pass --replace: a new badge stops the \
                card they hold. With --team, only members without a live badge get one, unless --replace.
                """)

        @OptionGroup var options: ConfigOptions

        @Argument(help: "The person's email.")
        var email: String?

        @Option(name: .long, help: "Issue a badge for every member of this team (its name or id) instead.")
        var team: String?

        @Flag(name: .long, help: "Replace live badges too; the cards they are on stop working.")
        var replace = false

        @Option(
            name: .long,
            help: "Write the cards as SVG pages: cards.svg writes cards-1.svg, cards-2.svg, … (with --team: required).")
        var out: String?

        @Option(name: .long, help: "The paper of --out: a4 or letter.")
        var paper: BadgePaper = .a4

        @Option(name: .long, help: "Environment id (default: the configuration's only environment).")
        var env: String?

        func validate() throws {
            guard (email == nil) != (team == nil) else { throw ValidationError("Give an email or --team, not both.") }
            if team != nil, out == nil { throw ValidationError("--team writes pages of cards: give --out FILE.svg.") }
            if let out, !out.hasSuffix(".svg") { throw ValidationError("--out names SVG pages: give a name ending in .svg.") }
        }

        func run() async throws {
            let (email, team, replace, env, options) = (email, team, replace, env, options)
            let paper = paper
            let pages = out.map { out in BadgeSheetFiles(base: out, paper: paper) }
            let (issued, company) = try await options.withStore { configuration, store in
                let environment = try options.environment(env, in: configuration)
                let caller = DirectoryCaller.cli(environmentID: environment.id)
                let people = try await Self.people(email: email, team: team, store: store, caller: caller)
                var chosen: [PersonSummary] = []
                var holders: [String] = []
                let now = Date()
                for person in people {
                    let badge = try await store.badge(userID: person.user.id, environmentID: caller.environmentID)
                    let live = badge?.isLive(at: now) ?? false
                    if live { holders.append(person.user.email) }
                    if !live || replace { chosen.append(person) }
                }
                switch (holders.isEmpty, replace) {
                case (true, _): break
                case (false, true): print("Replacing the live badges of \(holders.count): the cards they hold stop working.")
                case (false, false):
                    print("Kept the live badges of \(holders.count) (\(holders.joined(separator: ", "))); --replace issues them new ones.")
                }
                guard !chosen.isEmpty else { return ([(PersonSummary, BadgeIssue)](), environment.name) }
                // Issuing may replace the cards people hold: make sure first that the pages can be written.
                try pages?.create(count: chosen.count)
                var issued: [(PersonSummary, BadgeIssue)] = []
                let hasher = PinHasher()
                for person in chosen {
                    let issue = try await configuration.directoryChanges(store).issueBadge(
                        userID: person.user.id, settings: configuration.badges, hasher: hasher, by: caller)
                    issued.append((person, issue))
                }
                return (issued, environment.name)
            }
            guard !issued.isEmpty else {
                print("Nobody to issue a badge to.")
                return
            }
            for (person, issue) in issued {
                print(
                    "\(person.user.email): badge \(issue.badge.id), temporary PIN \(issue.temporaryPin), valid until \(issue.badge.expiresAt.formatted(.iso8601))"
                )
                if pages == nil { print("Badge, shown this once: \(issue.value)") }
            }
            if let pages {
                let cards = issued.map { person, issue in
                    BadgeCardSheet.Card(
                        displayName: person.displayName, email: person.user.email, badge: issue.value, expiresAt: issue.badge.expiresAt)
                }
                let written = try pages.write(try BadgeCardSheet.pages(cards, company: company, paper: paper))
                let files = written.joined(separator: ", ")
                print("Cards written to \(files) (\(paper.rawValue); readable by you only: they hold the badges).")
            }
        }

        /// The person with `email`, or the members of `team` (by id, else by name).
        private static func people(
            email: String?, team: String?, store: any FieldpassStore, caller: DirectoryCaller
        ) async throws -> [PersonSummary] {
            let environmentID = caller.environmentID
            if let team {
                var found = try await store.team(id: team, environmentID: environmentID)
                if found == nil { found = try await store.teams(environmentID: environmentID).first { $0.name == team } }
                guard let found else { throw CommandFailure("no team \(team) in environment '\(environmentID)'") }
                let members = PeopleQuery(teamID: found.id, limit: max(1, found.members.count))
                return try await store.people(members, environmentID: environmentID)
            }
            let email = (email ?? "").lowercased()
            guard let person = try await store.person(email: email, environmentID: environmentID) else {
                throw CommandFailure("no person \(email) in environment '\(environmentID)'")
            }
            // The display name is the IdP's, where SCIM provisioned the person.
            let profile = try await store.scimUser(id: person.id, environmentID: environmentID)?.profile
            return [PersonSummary(user: person, displayName: profile?.displayName)]
        }
    }

    struct ResetPin: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset-pin",
            abstract: "Give a person's badge a new temporary PIN, which also unlocks it; the card stays the same.")

        @OptionGroup var target: AdminTarget

        func run() async throws {
            let settings = try target.options.load().badges
            let pin = try await target.withBadge { changes, user, caller in
                try await changes.resetBadgePin(userID: user.id, settings: settings, hasher: PinHasher(), by: caller)
            }
            print("\(target.email): temporary PIN \(pin); the next sign-in with it sets the worker's own PIN.")
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a person's badge.")

        @OptionGroup var target: AdminTarget

        func run() async throws {
            try await target.withBadge { changes, user, caller in try await changes.revokeBadge(userID: user.id, by: caller) }
            print("Revoked the badge of \(target.email).")
        }
    }
}

extension AdminTarget {
    /// ``withUser(_:)`` for a change to the person's badge: a person without one is a
    /// failure that says so.
    fileprivate func withBadge<T: Sendable>(
        _ body: @Sendable (DirectoryChanges, UserRecord, DirectoryCaller) async throws -> T
    ) async throws -> T {
        let email = email
        return try await withUser { _, changes, user, caller in
            do {
                return try await body(changes, user, caller)
            } catch DirectoryError.unknownBadge {
                throw CommandFailure("\(email) has no badge")
            }
        }
    }
}

extension BadgePaper: ExpressibleByArgument {}
