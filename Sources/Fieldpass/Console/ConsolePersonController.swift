import FieldpassDomain
import Foundation
import Hummingbird

/// `/console/people/{id}`: one person, and every change an admin may make to them. Each
/// change goes through ``DirectoryChanges``, so the console refuses what the admin API refuses.
struct ConsolePersonController: Sendable {
    let store: any FieldpassStore
    let changes: DirectoryChanges
    let policy: RealmPolicy
    let pages: ConsolePages
    let badges: BadgeSettings

    func addRoutes(to group: RouterGroup<ConsoleRequestContext>) {
        group.get("people/:user_id", use: show)
        group.post("people/:user_id/role", use: setRole)
        group.post("people/:user_id/grants", use: setGrant)
        group.post("people/:user_id/grants/remove", use: removeGrant)
        group.post("people/:user_id/devices/:device_id/revoke", use: revokeDevice)
        group.post("people/:user_id/disable", use: disable)
        group.post("people/:user_id/enable", use: enable)
        group.post("people/:user_id/reset-identity", use: resetIdentity)
    }

    @Sendable func show(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        let visit = context.visit
        let environmentID = visit.identity.environmentID
        guard let userID = try? userID(context), let facts = try await store.accessFacts(userID: userID, environmentID: environmentID)
        else {
            return pages.notFound(context, what: "person", back: "/people")
        }
        let user = facts.user
        let permissions = AdminResponses.Permissions(facts: facts, policy: policy)
        let devices = try await store.devices(userID: userID, environmentID: environmentID)
        let history =
            visit.isAdmin
            ? try await store.namedAuditLog(environmentID: environmentID, filter: AuditFilter(personID: userID), before: nil, limit: 20)
            : []
        let badge = try await store.badge(userID: userID, environmentID: environmentID)
        let shifts = try await store.shifts(userID: userID, environmentID: environmentID, limit: Self.shiftsShown)
        let deviceNames = shifts.isEmpty ? [:] : try await sharedDeviceNames(visibleTo: visit.identity.directoryCaller)
        // Who made the temporary PINs the badge and the shifts name, as the audit log shows them.
        let issuers = try await ConsoleAuditController.shown(
            ([badge?.pinIssuedBy] + shifts.map(\.pinIssuedBy)).compactMap { $0 }, store: store, environmentID: environmentID)
        let looksAfter = try await looksAfterBadge(of: facts, visit)
        let roleManaged = changes.roleIsManaged(environmentID: environmentID)
        let provisioned = try await store.isScimManaged(userID: userID, teamID: nil, environmentID: environmentID)
        let view = PersonView(
            chrome: pages.chrome(user.email, context, .people), personID: user.id, email: ConsoleText(user.email),
            role: user.role.rawValue, disabled: user.disabled, boundToIdP: user.idpSubject != nil,
            canChange: visit.isAdmin, roleManaged: roleManaged, provisioned: provisioned, isSelf: user.id == visit.user.id,
            roles: Role.allCases.map { ConsolePeopleController.Option(value: $0.rawValue, label: $0.rawValue, selected: $0 == user.role) },
            teams: facts.teams.map { Named(id: $0, name: facts.teamNames[$0] ?? $0) }.sorted { $0.name < $1.name },
            grants: permissions.grants.sorted { $0.key < $1.key }.map { path, access in
                Grant(path: path, shown: ConsoleText(path), access: access.rawValue, levels: Self.levels(selected: access))
            },
            levels: Self.levels(selected: nil),
            realms: permissions.realms.sorted { $0.key < $1.key }.map {
                Grant(path: $0.key, shown: ConsoleText($0.key), access: $0.value.rawValue, levels: [])
            },
            devices: devices.map { device in
                Device(
                    id: device.id, name: device.name, shown: ConsoleText(device.name), platform: device.platform,
                    registered: ConsolePages.time(device.createdAt),
                    lastSeen: ConsolePages.time(device.lastSeenAt),
                    state: device.state == .registered ? "not signed in yet" : device.state.rawValue,
                    revoked: ConsolePages.time(device.revokedAt)
                )
            },
            badge: badge.map { badge in
                Badge(
                    issued: ConsolePages.time(badge.issuedAt), expires: ConsolePages.time(badge.expiresAt),
                    temporary: badge.pinTemporary, issuedBy: badge.pinIssuedBy.map { ConsoleText(issuers[$0] ?? $0) },
                    locked: badge.lockedAt != nil)
            },
            canIssueBadge: looksAfter && makesPins(visit), canRevokeBadge: looksAfter,
            shifts: shifts.map { shift in
                PersonShift(
                    deviceID: shift.sharedDeviceID, device: deviceNames[shift.sharedDeviceID] ?? "a shared device", shift: shift,
                    issuers: issuers)
            },
            history: history.map { ConsoleAuditRow($0, base: pages.base) }
        )
        return pages.renderer.page("person", view)
    }

    @Sendable func setRole(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        let userID = try userID(context)
        return try await pages.change(context, back: "/people/\(userID)") {
            let role = try AdminRequests.RoleChange(role: context.visit.form["role"] ?? "").validated()
            _ = try await changes.setRole(role, userID: userID, by: context.visit.identity.directoryCaller)
        }
    }

    @Sendable func setGrant(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        let userID = try userID(context)
        return try await pages.change(context, back: "/people/\(userID)") {
            let form = context.visit.form
            let grant = try AdminRequests.Grant(realmPath: form["realm_path"] ?? "", access: form["access"] ?? "")
                .validated(prefixes: policy.prefixes, environmentID: context.visit.identity.environmentID)
            _ = try await changes.setGrant(grant.access, realmPath: grant.path, userID: userID, by: context.visit.identity.directoryCaller)
        }
    }

    @Sendable func removeGrant(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        let userID = try userID(context)
        return try await pages.change(context, back: "/people/\(userID)") {
            let path = try AdminRequests.realmPath(
                context.visit.form["realm_path"] ?? "", prefixes: policy.prefixes, environmentID: context.visit.identity.environmentID
            )
            _ = try await changes.setGrant(nil, realmPath: path, userID: userID, by: context.visit.identity.directoryCaller)
        }
    }

    @Sendable func revokeDevice(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        let userID = try userID(context)
        return try await pages.change(context, back: "/people/\(userID)") {
            let deviceID = try AdminRequests.id(context.parameters.get("device_id") ?? "", unknown: .unknownDevice)
            try await changes.revokeDevice(id: deviceID, userID: userID, by: context.visit.identity.directoryCaller)
        }
    }

    @Sendable func disable(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        let userID = try userID(context)
        return try await pages.change(context, back: "/people/\(userID)") {
            _ = try await changes.setDisabled(true, userID: userID, by: context.visit.identity.directoryCaller)
        }
    }

    @Sendable func enable(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        let userID = try userID(context)
        return try await pages.change(context, back: "/people/\(userID)") {
            _ = try await changes.setDisabled(false, userID: userID, by: context.visit.identity.directoryCaller)
        }
    }

    @Sendable func resetIdentity(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        let userID = try userID(context)
        return try await pages.change(context, back: "/people/\(userID)") {
            try await changes.resetIdentity(userID: userID, by: context.visit.identity.directoryCaller)
        }
    }

    private func userID(_ context: ConsoleRequestContext) throws -> String {
        try AdminRequests.id(context.parameters.get("user_id") ?? "", unknown: .unknownUser)
    }

    private static func levels(selected: RealmAccess?) -> [ConsolePeopleController.Option] {
        RealmAccess.allCases.map { ConsolePeopleController.Option(value: $0.rawValue, label: $0.rawValue, selected: $0 == selected) }
    }

    struct Named {
        let id: String
        let name: String
    }

    struct Grant {
        let path: String
        let shown: ConsoleText
        let access: String
        let levels: [ConsolePeopleController.Option]
    }

    struct Device {
        let id: String
        let name: String
        let shown: ConsoleText
        let platform: String
        let registered: String?
        let lastSeen: String?
        let state: String
        let revoked: String?
    }

    /// Whether the signed-in person looks after the badge of the person `facts` are of: an admin
    /// anyone's, a manager those of his teams' workers (``DirectoryAuthority/looksAfter(_:personTeams:callerTeams:_:)``).
    private func looksAfterBadge(of facts: AccessFacts, _ visit: ConsoleVisit) async throws -> Bool {
        guard visit.user.role == .manager else { return visit.isAdmin }
        let own = try await store.accessFacts(userID: visit.user.id, environmentID: visit.identity.environmentID)?.teams ?? []
        return DirectoryAuthority.looksAfter(
            facts.user, personTeams: Set(facts.teams), callerTeams: Set(own), visit.identity.directoryCaller)
    }

    /// Whether the signed-in person makes temporary PINs at all: an admin, a manager where the
    /// environment lets managers (``BadgeRules/checkMakesPins(_:managersIssue:)``).
    private func makesPins(_ visit: ConsoleVisit) -> Bool {
        (try? changes.checkMakesPins(badges, by: visit.identity.directoryCaller)) != nil
    }

    /// A person's shifts the page lists, latest first.
    static let shiftsShown = 20

    /// The names of the shared devices the caller may see, by id: a manager's list of another
    /// team's device shows no name.
    private func sharedDeviceNames(visibleTo caller: DirectoryCaller) async throws -> [String: String] {
        Dictionary(try await store.sharedDevices(visibleTo: caller).map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
    }

    struct Badge {
        let issued: String?
        let expires: String?
        let temporary: Bool
        /// Who made the temporary PIN, as shown.
        let issuedBy: ConsoleText?
        let locked: Bool
    }

    struct PersonShift {
        let deviceID: String
        let device: ConsoleText
        let shift: ConsoleSharedDevicesController.Shift
        /// How the shift was started: at the IdP, with the badge and the worker's PIN, or with
        /// a temporary PIN someone else made (then `temporaryPinBy` names them).
        let signedInWith: String
        let temporaryPinBy: ConsoleText?

        init(deviceID: String, device: String, shift: ShiftRecord, issuers: [String: String]) {
            self.deviceID = deviceID
            self.device = ConsoleText(device)
            self.shift = ConsoleSharedDevicesController.Shift(shift)
            temporaryPinBy = shift.pinIssuedBy.map { ConsoleText(issuers[$0] ?? $0) }
            signedInWith =
                switch (shift.amr, temporaryPinBy) {
                case (_, .some): "badge and a temporary PIN made by"
                case (.some, nil) where shift.offlinePermitID != nil: "badge and PIN, offline"
                case (.some, nil): "badge and PIN"
                case (nil, nil): "identity provider"
                }
        }
    }

    struct PersonView {
        let chrome: ConsoleChrome
        let personID: String
        let email: ConsoleText
        let role: String
        let disabled: Bool
        let boundToIdP: Bool
        let canChange: Bool
        let roleManaged: Bool
        let provisioned: Bool
        let isSelf: Bool
        let roles: [ConsolePeopleController.Option]
        let teams: [Named]
        let grants: [Grant]
        let levels: [ConsolePeopleController.Option]
        let realms: [Grant]
        let devices: [Device]
        let badge: Badge?
        /// Admins for anyone; managers for their teams' workers, where the environment lets them.
        let canIssueBadge: Bool
        /// Admins for anyone, managers for their teams' workers.
        let canRevokeBadge: Bool
        let shifts: [PersonShift]
        let history: [ConsoleAuditRow]
    }
}
