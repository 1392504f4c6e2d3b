/// What makes a PIN: digits only, `badges.pin_length` of them, not all one digit, and not a
/// run up or down (`12345678`, `98765432`): the PINs people pick first, and so try first.
package enum PinRules {
    /// Why a new PIN is refused, as the person setting it is told.
    package enum Problem: Error, Equatable, Sendable {
        case notDigits
        case wrongLength(Int)
        case oneDigit
        case run

        /// The rule's name in an answer's `pin_rule`, for an app to say it in its own words.
        package var rule: String {
            switch self {
            case .notDigits: "digits_only"
            case .wrongLength: "length"
            case .oneDigit: "one_digit"
            case .run: "run"
            }
        }

        package var description: String {
            switch self {
            case .notDigits: "The PIN must be digits only."
            case .wrongLength(let length): "The PIN must be \(length) digits."
            case .oneDigit: "The PIN must not be one digit repeated."
            case .run: "The PIN must not be a run of digits up or down."
            }
        }
    }

    /// The PIN lengths the configuration may choose.
    package static let allowedLengths = 6...20

    /// `pin` as a new PIN of `length` digits, or why not.
    package static func check(_ pin: String, length: Int) throws(Problem) {
        let digits = pin.unicodeScalars.compactMap { ("0"..."9").contains($0) ? Int($0.value) - 48 : nil }
        guard digits.count == pin.unicodeScalars.count else { throw .notDigits }
        guard digits.count == length else { throw .wrongLength(length) }
        guard Set(digits).count > 1 else { throw .oneDigit }
        let steps = Set(zip(digits, digits.dropFirst()).map { ($1 - $0 + 10) % 10 })
        if steps == [1] || steps == [9] { throw .run }
    }
}
