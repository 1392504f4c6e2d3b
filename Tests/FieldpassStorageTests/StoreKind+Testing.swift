public import StoreTestSupport
public import Testing

extension StoreKind: CustomTestStringConvertible {
    public var testDescription: String { rawValue }
}
