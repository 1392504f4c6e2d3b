import ArgumentParser
import CommandLineSupport
import Fieldpass
import FieldpassDomain

/// `EMAIL [--env ENV]`: the person an admin command acts on, who must exist already.
struct AdminTarget: ParsableArguments {
    @OptionGroup var options: ConfigOptions

    @Argument(help: "The person's email address.")
    var email: String

    @Option(name: .long, help: "Environment id (default: the configuration's only environment).")
    var env: String?

    /// Runs `body` with the store, the directory's changes, the person, and the CLI as the
    /// directory names it (trusted as whoever may run it, audited as `cli`), or fails naming
    /// what is unknown. A person removed while `body` runs (an unfinished registration swept,
    /// another admin) is reported as one never found.
    func withUser<T: Sendable>(
        _ body: @Sendable (any FieldpassStore, DirectoryChanges, UserRecord, DirectoryCaller) async throws -> T
    ) async throws -> T {
        let (env, email, options) = (env, email, options)
        return try await options.withStore { configuration, store in
            let environmentID = try options.environment(env, in: configuration).id
            let unknown = CommandFailure("no user \(email) in environment '\(environmentID)'")
            let address = EmailAddress(email)?.value ?? email
            guard let user = try await store.users(environmentID: environmentID).first(where: { $0.email == address }) else {
                throw unknown
            }
            let changes = configuration.directoryChanges(store)
            do {
                return try await body(store, changes, user, .cli(environmentID: environmentID))
            } catch DirectoryError.unknownUser {
                throw unknown
            }
        }
    }
}
