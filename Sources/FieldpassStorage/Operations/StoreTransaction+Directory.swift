import FieldpassDomain
import Foundation

/// The directory's facts operations read, each read one way for both stores: what a person may
/// reach, and teams. A fact read to decide on it is read under its row's lock (``LockedTable``).
extension StoreTransaction {
    /// The person with their teams (ids and names) and grants.
    func accessFacts(userID: String, environmentID: String) async throws -> AccessFacts? {
        try await first(SignInStatements.accessFacts, userID, environmentID).map(AccessFacts.init(row:))
    }

    /// The team a change just wrote, which this transaction still holds.
    func requireTeam(id: String, environmentID: String) async throws -> TeamRecord {
        guard let team = try await team(id: id, environmentID: environmentID) else { throw DirectoryError.unknownTeam }
        return team
    }

    /// The id of the team named `name` in any case, as the unique index of team names compares names.
    func teamID(named name: String, environmentID: String) async throws -> String? {
        try await value(TeamStatements.idNamed, environmentID, name)
    }

    /// Whether the team is a SCIM group's, whose name, existence and members are the IdP's.
    func isScimGroupTeam(_ teamID: String, environmentID: String) async throws -> Bool {
        try await value(ScimStatements.teamIsGroup, teamID, environmentID, as: Bool.self) ?? false
    }
}
