import FieldpassDomain

/// A request from a live console session, as ``ConsoleSessionMiddleware`` found it.
struct ConsoleVisit: Sendable {
    /// The person, as stored now (in the session's environment: the store checks it).
    let user: UserRecord
    let cookie: ConsoleCookie
    /// A POST's fields, its anti-CSRF token already checked; empty for a GET.
    let form: [String: String]

    /// The person as the admin API's rules know a caller, acting through the console (actor
    /// `console:<id>`).
    var identity: Identity { Identity(environmentID: user.environmentID, principal: .user(user), viaConsole: true) }

    /// Whether the person may change what the console shows, and see the audit log and keys.
    var isAdmin: Bool { user.role.may(.administer) }
}
