/// A statement both stores run, written once. Its text names each value by number, from 1, and
/// each dialect renders the placeholders: `?1` in SQLite, `$1` in PostgreSQL. Either way the
/// values are bound in the order of their numbers, and a number may stand more than once.
struct SharedStatement: Sendable {
    let sqlite: String
    let postgres: String

    /// `text` answers the statement, `value(n)` standing for its n-th value.
    init(_ text: (_ value: (Int) -> String) -> String) {
        sqlite = text { "?\($0)" }
        postgres = text { "$\($0)" }
    }
}

extension SharedStatement {
    /// A statement whose syntax differs by dialect in a few places (lists, byte order):
    /// `text` answers it for each, given the ``SQLDialect`` that writes those places.
    init(dialects text: (SQLDialect) -> String) {
        sqlite = text(.sqlite)
        postgres = text(.postgres)
    }
}
