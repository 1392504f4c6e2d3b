/// The stores every store test runs against.
public enum StoreKind: String, CaseIterable, Sendable {
    case sqlite
    case postgres
}
