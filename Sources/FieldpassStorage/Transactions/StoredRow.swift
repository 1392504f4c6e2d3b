/// A row either store answered, read by column name into ``StoredValue``s: a record is
/// decoded from it once, for both stores.
protocol StoredRow {
    /// The value of the column `name`; a missing column is a programming error.
    func column<Value: StoredValue>(_ name: String, as type: Value.Type) throws -> Value
    /// The value of the column at `index`, from 0.
    func column<Value: StoredValue>(at index: Int, as type: Value.Type) throws -> Value
}

extension StoredRow {
    func column<Value: StoredValue>(_ name: String) throws -> Value { try column(name, as: Value.self) }
}
