/// A statement whose text is put together at run time (a page's filters), with the values its
/// placeholders stand for: each value is numbered as it is bound, so that one text serves both
/// dialects (``SharedStatement``).
struct BuiltStatement: Sendable {
    let statement: SharedStatement
    let values: [(any StoredValue)?]

    /// `text` writes the statement in the dialect given, calling `bind` for each value, which
    /// answers its placeholder. It must bind the same values in the same order in both dialects.
    init(_ text: (_ dialect: SQLDialect, _ bind: (any StoredValue) -> String) -> String) {
        var values: [(any StoredValue)?] = []
        statement = SharedStatement(dialects: { dialect in
            values = []
            return text(dialect) { value in
                values.append(value)
                return dialect.value(values.count)
            }
        })
        self.values = values
    }
}

extension StoreTransaction {
    func rows(_ built: BuiltStatement) async throws -> [Row] {
        try await rows(built.statement, built.values, locking: nil)
    }
}
