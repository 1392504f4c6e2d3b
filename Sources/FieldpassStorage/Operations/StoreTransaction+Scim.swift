import FieldpassDomain
import Foundation

/// The SCIM facts operations read, each read one way for both stores: the people and groups
/// SCIM lists, and a group's team. A fact read to decide on it is read under its row's lock
/// (``LockedTable``).
extension StoreTransaction {
    /// The person SCIM lists with this id.
    func scimUser(id: String, environmentID: String) async throws -> ScimUserRecord? {
        try await first(ScimStatements.user, environmentID, id).map { try ScimUserRecord(row: $0) }
    }

    /// The person SCIM lists with this id, or `DirectoryError.unknownUser`.
    func requireScimUser(id: String, environmentID: String) async throws -> ScimUserRecord {
        guard let record = try await scimUser(id: id, environmentID: environmentID) else { throw DirectoryError.unknownUser }
        return record
    }

    /// The listed person, their row locked until the transaction ends.
    func lockScimUser(id: String, environmentID: String) async throws -> ScimUserRecord {
        guard try await user(id: id, environmentID: environmentID, locking: true) != nil else { throw DirectoryError.unknownUser }
        return try await requireScimUser(id: id, environmentID: environmentID)
    }

    /// The group of `row` (``ScimColumns/groupColumns``) with its members.
    func scimGroup(row: Row) async throws -> ScimGroupRecord {
        let id: String = try row.column("id")
        return ScimGroupRecord(
            id: id, teamID: try row.column("team_id"), displayName: try row.column("display_name"),
            externalID: try row.column("external_id"), members: try await list(ScimColumns.members, id),
            createdAt: Date(timeIntervalSince1970: try row.column("created_at")),
            updatedAt: Date(timeIntervalSince1970: try row.column("updated_at")))
    }

    func scimGroup(id: String, environmentID: String) async throws -> ScimGroupRecord? {
        guard let row = try await first(ScimStatements.group, environmentID, id) else { return nil }
        return try await scimGroup(row: row)
    }

    /// The group with this id, or `DirectoryError.unknownTeam`.
    func requireScimGroup(id: String, environmentID: String) async throws -> ScimGroupRecord {
        guard let group = try await scimGroup(id: id, environmentID: environmentID) else { throw DirectoryError.unknownTeam }
        return group
    }

    /// The group, its row locked until the transaction ends: two changes of one group run one
    /// after the other, each seeing the members the other left.
    func lockScimGroup(id: String, environmentID: String) async throws -> ScimGroupRecord {
        guard try await first(ScimStatements.groupID, id, environmentID, locking: .scimGroups) != nil else {
            throw DirectoryError.unknownTeam
        }
        return try await requireScimGroup(id: id, environmentID: environmentID)
    }

    /// The team, if it is of the environment, with its members. Locked, its name and members
    /// cannot change until the transaction ends.
    func team(id: String, environmentID: String, locking: Bool = false) async throws -> TeamRecord? {
        guard let row = try await first(TeamStatements.team, id, environmentID, locking: locking ? .teams : nil) else { return nil }
        return TeamRecord(
            id: try row.column("id"), name: try row.column("name"), members: try await list(TeamStatements.members, id),
            createdAt: Date(timeIntervalSince1970: try row.column("created_at")))
    }
}

extension TransactionalStore {
    /// A page of `listing`, each row read by `item`, and how many there are.
    func scimPage<Item: Sendable>(
        _ listing: ScimStatements.Listing, environmentID: String, offset: Int, limit: Int,
        item: @escaping @Sendable (Transaction, Transaction.Row) async throws -> Item
    ) async throws -> ScimPage<Item> {
        try await reading { transaction in
            let total = try await transaction.value(listing.count, environmentID, listing.value, as: Int.self) ?? 0
            var items: [Item] = []
            for row in try await transaction.rows(listing.page, environmentID, listing.value, limit, offset) {
                items.append(try await item(transaction, row))
            }
            return ScimPage(total: total, items: items)
        }
    }
}

extension ScimUserRecord {
    /// A person from a row of ``ScimColumns/userColumns``.
    init(row: some StoredRow) throws {
        self.init(
            user: try UserRecord(row: row),
            profile: try ScimColumns.profile(
                externalID: try row.column("external_id"), displayName: try row.column("display_name"), name: try row.column("name"),
                emails: try row.column("emails")),
            updatedAt: try row.column("updated_at", as: Double?.self).map(Date.init(timeIntervalSince1970:)))
    }
}
