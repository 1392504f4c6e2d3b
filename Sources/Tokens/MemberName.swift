/// A JSON object's member by its name, for a decoder that asks which members an object has
/// rather than reading a fixed set.
public struct MemberName: CodingKey, Sendable {
    public let stringValue: String
    public var intValue: Int? { nil }

    public init(stringValue: String) { self.stringValue = stringValue }

    public init?(intValue: Int) { nil }
}
