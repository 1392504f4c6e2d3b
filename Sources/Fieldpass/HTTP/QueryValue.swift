/// Typed query parameters: a value that is present but malformed is a 400, never ignored.
enum QueryValue {
    /// A whole number within `range`, `nil` when absent.
    static func integer(_ text: String?, name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw APIError.invalidRequest("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound).")
        }
        return value
    }

    /// `true` or `false`, `nil` when absent.
    static func flag(_ text: String?, name: String) throws -> Bool? {
        switch text {
        case nil: nil
        case "true": true
        case "false": false
        default: throw APIError.invalidRequest("\(name) must be true or false.")
        }
    }
}
