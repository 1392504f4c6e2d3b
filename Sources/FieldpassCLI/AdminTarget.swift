import ArgumentParser
import Fieldpass

/// `EMAIL --env ENV`: the person an admin command acts on, who must exist already.
struct AdminTarget: ParsableArguments {
    @OptionGroup var options: ConfigOptions

    @Argument(help: "The person's email address.")
    var email: String

    @Option(name: .long, help: "Environment id.")
    var env: String

    /// Runs `body` with the store and the person, or fails naming what is unknown.
    func withUser(_ body: @Sendable (any FieldpassStore, UserRecord) async throws -> Void) async throws {
        let env = env
        let email = email
        let config = options.config
        try await options.withStore { configuration, store in
            guard configuration.environments.contains(where: { $0.id == env }) else {
                throw ValidationError("no environment '\(env)' in \(config)")
            }
            let address = EmailAddress(email)?.value ?? email
            guard let user = try await store.users(environmentID: env).first(where: { $0.email == address }) else {
                throw ValidationError("no user \(email) in environment '\(env)'")
            }
            try await body(store, user)
        }
    }
}
