import FieldpassDomain
import Foundation
import HTTPTypes

/// Bodies and checks of the admin endpoints: every value is validated before the store sees it.
enum AdminRequests {
    struct RoleChange: Decodable {
        var role: String

        func validated() throws -> Role {
            guard let role = Role(rawValue: role) else {
                throw APIError(.badRequest, DirectoryErrorCode.invalidRole, "role must be admin, manager or worker.")
            }
            return role
        }
    }

    struct Grant: Decodable {
        var realmPath: String
        var access: String

        enum CodingKeys: String, CodingKey {
            case realmPath = "realm_path"
            case access
        }

        /// The stored path (without the environment's prefix) and the level.
        func validated(prefixes: RealmPrefixes, environmentID: String) throws -> (path: String, access: RealmAccess) {
            guard let access = RealmAccess(rawValue: access) else {
                throw APIError(.badRequest, DirectoryErrorCode.invalidAccess, "access must be read, write or manage.")
            }
            return (try AdminRequests.realmPath(realmPath, prefixes: prefixes, environmentID: environmentID), access)
        }
    }

    struct TeamName: Decodable {
        var name: String

        func validated() throws -> String {
            try DisplayName.validated(name, field: "name")
        }
    }

    /// A realm path or pattern such as `/teams/*`, as the environment names it (under its
    /// `realm_prefix`, if it has one); returns the stored form.
    static func realmPath(_ text: String, prefixes: RealmPrefixes, environmentID: String) throws -> String {
        guard RealmPath.isValid(text, allowingPattern: true) else {
            throw APIError(
                .badRequest, DirectoryErrorCode.invalidRealmPath,
                "realm_path must look like /segment[/segment…], segments of letters, digits, '-' or '_'.")
        }
        guard let stored = prefixes.inward(text, environmentID: environmentID), RealmPath.isValid(stored, allowingPattern: true) else {
            let prefix = prefixes.prefix(of: environmentID)
            throw APIError(
                .badRequest, DirectoryErrorCode.invalidRealmPath, "realm_path must be a realm of this environment, under \(prefix)/.")
        }
        return stored
    }

    /// An id from the URL; anything that cannot be one of ours is simply unknown.
    static func id(_ text: String, unknown: DirectoryError) throws -> String {
        guard (1...64).contains(text.utf8.count),
            text.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-") })
        else { throw unknown }
        return text
    }
}
