import FieldpassDomain
import Foundation
import Hummingbird

/// `/me…`: the caller's user, role, teams and effective realms, and their devices.
struct MeController: Sendable {
    let directory: any DirectoryStore
    let credentials: any CredentialStore
    let changes: DirectoryChanges
    let policy: RealmPolicy

    func addRoutes(to group: RouterGroup<IdentifiedRequestContext>) {
        group.get("me", use: show)
        group.get("me/devices", use: devices)
        group.delete("me/devices/:device_id", use: revokeDevice)
    }

    @Sendable func show(_ request: Request, context: IdentifiedRequestContext) async throws -> Me {
        let user = try context.identity.requireUser()
        guard let facts = try await directory.accessFacts(userID: user.id, environmentID: user.environmentID) else {
            throw DirectoryError.unknownUser
        }
        // By name regardless of case, as the team list orders them.
        let teams = facts.teams.compactMap { id in facts.teamNames[id].map { Me.Team(id: id, name: $0) } }
            .sorted { ($0.name.lowercased(), $0.id) < ($1.name.lowercased(), $1.id) }
        return Me(user: user, role: user.role, teams: teams, realms: policy.realms(for: facts))
    }

    @Sendable func devices(_ request: Request, context: IdentifiedRequestContext) async throws -> DeviceList {
        let user = try context.identity.requireUser()
        let records = try await credentials.devices(userID: user.id, environmentID: user.environmentID)
        return DeviceList(records, currentDeviceID: context.identity.deviceID)
    }

    /// Signs a lost or replaced device out: its tokens stop working.
    @Sendable func revokeDevice(_ request: Request, context: IdentifiedRequestContext) async throws -> HTTPResponse.Status {
        let user = try context.identity.requireUser()
        let deviceID = try AdminRequests.id(context.parameters.get("device_id") ?? "", unknown: .unknownDevice)
        try await changes.revokeDevice(id: deviceID, userID: user.id, by: context.identity.directoryCaller)
        return .noContent
    }

    struct Me: ResponseEncodable {
        struct Team: Encodable {
            var id: String
            var name: String
        }

        var user: UserRecord
        var role: Role
        var teams: [Team]
        var realms: [String: RealmAccess]
    }
}
