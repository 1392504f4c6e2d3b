/// Who changes people and teams: one value that decides what the caller may do, whether the
/// IdP's say over roles, memberships and SCIM groups binds them, and how the audit log names
/// them. The admin API, the console, SCIM, the sign-in's claims and the CLI each pass theirs.
public enum DirectoryCaller: Sendable, Equatable {
    /// A person with a bearer token at the admin API: their role decides.
    case admin(UserRecord)
    /// A person signed in at the admin console: their role decides.
    case console(UserRecord)
    /// A backend integration's service account: it reads through the integration API and changes nobody.
    case service(accountID: String, environmentID: String)
    /// The IdP provisioning people and groups through SCIM.
    case scim(environmentID: String)
    /// The IdP's claims at a sign-in.
    case idp(environmentID: String)
    /// An operator on the machine (`fieldpass admin …`), trusted as whoever may run it.
    case cli(environmentID: String)

    /// The audit log's actor for every SCIM change.
    package static let scimActor = "scim"
    /// The audit log's actor for what a sign-in's claims or its IdP account change.
    package static let idpActor = "idp"
    /// The audit log's actor for the CLI's changes.
    package static let cliActor = "cli"

    /// The environment the caller acts in; every id they name is looked up there.
    package var environmentID: String {
        switch self {
        case .admin(let user), .console(let user): user.environmentID
        case .service(_, let environmentID), .scim(let environmentID), .idp(let environmentID), .cli(let environmentID):
            environmentID
        }
    }

    /// The person calling, at the admin API or the console.
    package var person: UserRecord? {
        switch self {
        case .admin(let user), .console(let user): user
        case .service, .scim, .idp, .cli: nil
        }
    }

    /// How the audit log names the caller; a console action says so, and whose it was.
    package var actor: String {
        switch self {
        case .admin(let user): "user:\(user.id)"
        case .console(let user): "console:\(user.id)"
        case .service(let accountID, _): "service:\(accountID)"
        case .scim: Self.scimActor
        case .idp: Self.idpActor
        case .cli: Self.cliActor
        }
    }

    /// Whether the caller speaks for the IdP, which owns what it provisions and what its claims set.
    package var isIdentityProvider: Bool {
        switch self {
        case .scim, .idp: true
        case .admin, .console, .service, .cli: false
        }
    }

    /// The same caller, for a person calling with their record as it is now.
    package func replacingPerson(with current: UserRecord) -> DirectoryCaller {
        switch self {
        case .admin: .admin(current)
        case .console: .console(current)
        case .service, .scim, .idp, .cli: self
        }
    }

    /// Whether the caller may take `action`: a person as their role says (``Role/may(_:)``), a
    /// service account never, the IdP and the machine's operator always.
    package func may(_ action: DirectoryAction) -> Bool {
        switch self {
        case .admin(let user), .console(let user): user.role.may(action)
        case .service: false
        case .scim, .idp, .cli: true
        }
    }
}
