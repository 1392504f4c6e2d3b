import Foundation
/// A JSON value as SCIM exchanges it: resources, PATCH operations and their values.
///
/// Attribute names are case-insensitive in SCIM (RFC 7643 §2.1), so objects are read with
/// ``ScimJSON/member(_:)``, which ignores case.
public enum ScimJSON: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([ScimJSON])
    case object([String: ScimJSON])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([ScimJSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: ScimJSON].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value):
            if value == value.rounded(), abs(value) < 1e15 { try container.encode(Int64(value)) } else { try container.encode(value) }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The object's members, or `nil` for anything else.
    package var objectValue: [String: ScimJSON]? {
        if case .object(let members) = self { members } else { nil }
    }

    /// The string, or `nil` for anything else.
    package var stringValue: String? {
        if case .string(let value) = self { value } else { nil }
    }

    /// The member named `name` in any case, with the name as it was sent.
    package func member(_ name: String) -> (key: String, value: ScimJSON)? {
        guard let members = objectValue else { return nil }
        if let value = members[name] { return (name, value) }
        return members.first { Self.sameName($0.key, name) }
    }

    /// Whether two attribute names are the same in any case (RFC 7643 §2.1). ASCII names, as
    /// every attribute of Fieldpass's schemas is, are compared byte by byte: Foundation's
    /// `caseInsensitiveCompare` takes microseconds, and names are compared for each member of
    /// a group of 10,000. Other names are left to Foundation.
    package static func sameName(_ one: String, _ other: String) -> Bool {
        guard one.utf8.allSatisfy({ $0 < 0x80 }), other.utf8.allSatisfy({ $0 < 0x80 }) else {
            return one.caseInsensitiveCompare(other) == .orderedSame
        }
        return one.utf8.count == other.utf8.count && zip(one.utf8, other.utf8).allSatisfy { $0 == $1 || folded($0) == folded($1) }
    }

    /// An ASCII letter in lower case; any other byte as it is.
    private static func folded(_ byte: UInt8) -> UInt8 {
        (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
    }
}
