import ArgumentParser
import Fieldpass

/// `EMAIL --env ENV`: the person an admin command acts on, who must exist already.
struct AdminTarget: ParsableArguments {
    @OptionGroup var options: ConfigOptions

    @Argument(help: "The person's email address.")
    var email: String

    @Option(name: .long, help: "Environment id.")
    var env: String

    /// The store and the person, or a clear error naming what is unknown.
    func resolve() async throws -> (store: SQLiteStore, user: UserRecord) {
        let configuration = try options.load()
        guard configuration.environments.contains(where: { $0.id == env }) else {
            throw ValidationError("no environment '\(env)' in \(options.config)")
        }
        let store = try SQLiteStore(path: configuration.storage.sqlitePath)
        let address = EmailAddress(email)?.value ?? email
        guard let user = try await store.users(environmentID: env).first(where: { $0.email == address }) else {
            throw ValidationError("no user \(email) in environment '\(env)'")
        }
        return (store, user)
    }
}
