import ArgumentParser
import Fieldpass
import FieldpassDomain

/// `EMAIL --env ENV`: the person an admin command acts on, who must exist already.
struct AdminTarget: ParsableArguments {
    @OptionGroup var options: ConfigOptions

    @Argument(help: "The person's email address.")
    var email: String

    @Option(name: .long, help: "Environment id.")
    var env: String

    /// The CLI as the directory names it: trusted as whoever may run it, audited as `cli`.
    var caller: DirectoryCaller { .cli(environmentID: env) }

    /// Runs `body` with the store, the directory's changes and the person, or fails naming
    /// what is unknown. A person removed while `body` runs (an unfinished registration swept,
    /// another admin) is reported as one never found.
    func withUser(_ body: @Sendable (any FieldpassStore, DirectoryChanges, UserRecord) async throws -> Void) async throws {
        let env = env
        let email = email
        let options = options
        let unknown = CommandFailure("no user \(email) in environment '\(env)'")
        try await options.withStore { configuration, store in
            _ = try options.environment(env, in: configuration)
            let address = EmailAddress(email)?.value ?? email
            guard let user = try await store.users(environmentID: env).first(where: { $0.email == address }) else {
                throw unknown
            }
            let changes = configuration.directoryChanges(store)
            do {
                try await body(store, changes, user)
            } catch DirectoryError.unknownUser {
                throw unknown
            }
        }
    }
}
