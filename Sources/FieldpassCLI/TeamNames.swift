import FieldpassDomain

/// Teams as an operator names them on the command line and reads them in its output: by name,
/// which the CLI has no other way to show, with the id still taken where one is typed.
extension DirectoryStore {
    /// The environment's team that `nameOrID` names: its id, else its name in any case.
    func team(named nameOrID: String, environmentID: String) async throws -> TeamRecord? {
        if let team = try await team(id: nameOrID, environmentID: environmentID) { return team }
        let name = nameOrID.lowercased()
        return try await teams(environmentID: environmentID).first { $0.name.lowercased() == name }
    }

    /// The environment's team names, by id.
    func teamNames(environmentID: String) async throws -> [String: String] {
        Dictionary(try await teams(environmentID: environmentID).map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
    }
}
