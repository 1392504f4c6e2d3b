import FieldpassDomain

/// A request from a live console session, as ``ConsoleSessionMiddleware`` found it.
struct ConsoleVisit: Sendable {
    /// The person, as stored now, acting through the console (actor `console:<id>`).
    let identity: Identity
    let user: UserRecord
    let cookie: ConsoleCookie
    /// A POST's fields, its anti-CSRF token already checked; empty for a GET.
    let form: [String: String]

    var isAdmin: Bool { user.role == .admin }
}
