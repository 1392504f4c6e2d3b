/// The places where the text of a statement both stores run differs by dialect
/// (``SharedStatement/init(dialects:)``).
struct SQLDialect {
    static let sqlite = SQLDialect(isPostgres: false)
    static let postgres = SQLDialect(isPostgres: true)

    /// For the rare text that differs beyond these places.
    let isPostgres: Bool

    /// The placeholder of the statement's n-th value, from 1.
    func value(_ number: Int) -> String { isPostgres ? "$\(number)" : "?\(number)" }

    /// Whether `expression` is one of the list of text that is the statement's n-th value (a
    /// `[String]`: a `text[]` to PostgreSQL, a JSON array to SQLite).
    func isOneOf(_ expression: String, list number: Int) -> String {
        isPostgres ? "\(expression) = ANY(\(value(number)))" : "\(expression) IN (SELECT value FROM json_each(\(value(number))))"
    }

    /// The text at `key` of the JSON object in the text column `column` (`NULL` where there is
    /// none): SQLite's JSON functions, PostgreSQL's `jsonb`. `key` is a name of ours, never a value.
    func jsonText(_ column: String, key: String) -> String {
        isPostgres ? "(\(column)::jsonb ->> '\(key)')" : "json_extract(\(column), '$.\(key)')"
    }

    /// The column `item` of `query`'s rows as one value, a list of text (a `[String]`), in their
    /// order: a `text[]` to PostgreSQL, a JSON array to SQLite (which aggregates the rows of a
    /// subquery with an ORDER BY in that order). One value decodes at a fraction of the cost of
    /// as many rows.
    func list(_ query: String) -> String {
        isPostgres ? "ARRAY(\(query))" : "(SELECT json_group_array(item) FROM (\(query)))"
    }

    /// `expression` compared byte by byte, as SQLite compares text and PostgreSQL does under
    /// the "C" collation, whatever the database's: ids sort, and lock, in one order.
    func bytewise(_ expression: String) -> String { isPostgres ? "\(expression) COLLATE \"C\"" : expression }
}
