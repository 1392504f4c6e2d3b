import Testing
@testable import FieldpassDomain

@Suite("PIN rules")
struct PinRulesTests {
    @Test(arguments: ["38472910", "10293847", "00000001", "13579135"]) func aPinOfDigitsOfTheLengthIsTaken(pin: String) throws {
        try PinRules.check(pin, length: 8)
    }

    @Test func everyRuleRefusesItsPins() {
        let refused: [(String, PinRules.Problem)] = [
            ("1234567a", .notDigits), ("1234 678", .notDigits), ("١٢٣٤٥٦٧٨", .notDigits), ("", .wrongLength(8)),
            ("3847291", .wrongLength(8)), ("384729101", .wrongLength(8)), ("77777777", .oneDigit), ("12345678", .run),
            ("87654321", .run), ("78901234", .run), ("32109876", .run),
        ]
        for (pin, problem) in refused {
            #expect(throws: problem, "\(pin)") { try PinRules.check(pin, length: 8) }
        }
    }

    @Test func theLengthIsTheConfigurations() throws {
        try PinRules.check("385027", length: 6)
        #expect(throws: PinRules.Problem.wrongLength(20)) { try PinRules.check("385027", length: 20) }
        #expect(PinRules.allowedLengths == 6...20)
    }

    /// The names an answer's `pin_rule` carries, which apps match: each rule its own, stable.
    @Test func eachRuleHasItsOwnName() {
        let names = [PinRules.Problem.notDigits, .wrongLength(8), .oneDigit, .run].map(\.rule)
        #expect(names == ["digits_only", "length", "one_digit", "run"])
    }
}
