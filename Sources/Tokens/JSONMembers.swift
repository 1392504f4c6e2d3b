internal import Foundation

/// The top-level members of a JSON object in order, duplicates kept.
///
/// Foundation's decoder keeps one member of each name, so it cannot tell that a header
/// names `alg` twice; RFC 7515 §5.2 asks a recipient to reject such a header. This scanner
/// only finds members: the document must also pass the real decoder.
struct JSONMembers {
    /// Member names (escapes decoded) and their raw values, in document order.
    let members: [(name: String, value: ArraySlice<UInt8>)]

    /// Nil when `bytes` is not an object this scanner can walk.
    init?(_ bytes: [UInt8]) {
        var scanner = Scanner(bytes: bytes)
        guard let members = scanner.objectMembers() else { return nil }
        self.members = members
    }

    /// The values of every member called `name`, decoded as strings (nil for a non-string).
    func strings(named name: String) -> [String?] {
        members.filter { $0.name == name }.map { Scanner.string($0.value) }
    }

    /// The first name that occurs twice.
    var duplicateName: String? {
        var seen: Set<String> = []
        return members.first { !seen.insert($0.name).inserted }?.name
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        mutating func objectMembers() -> [(name: String, value: ArraySlice<UInt8>)]? {
            skipSpace()
            guard take(UInt8(ascii: "{")) else { return nil }
            var members: [(name: String, value: ArraySlice<UInt8>)] = []
            skipSpace()
            if take(UInt8(ascii: "}")) { return members }
            repeat {
                skipSpace()
                let nameStart = index
                guard skipString(), let name = Self.string(bytes[nameStart..<index]) else { return nil }
                skipSpace()
                guard take(UInt8(ascii: ":")) else { return nil }
                skipSpace()
                let valueStart = index
                guard skipValue() else { return nil }
                members.append((name, bytes[valueStart..<index]))
                skipSpace()
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "}")) ? members : nil
        }

        /// A string literal's value; only one with escapes goes through the full decoder.
        static func string(_ literal: ArraySlice<UInt8>) -> String? {
            guard literal.count >= 2, literal.first == UInt8(ascii: "\""), literal.last == UInt8(ascii: "\"") else { return nil }
            guard literal.contains(UInt8(ascii: "\\")) else { return String(decoding: literal.dropFirst().dropLast(), as: UTF8.self) }
            return try? JSONDecoder().decode(String.self, from: Data(literal))
        }

        /// Skips a string, nested object or array, or a bare literal or number.
        private mutating func skipValue() -> Bool {
            guard index < bytes.count else { return false }
            switch bytes[index] {
            case UInt8(ascii: "\""):
                return skipString()
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                while index < bytes.count {
                    switch bytes[index] {
                    case UInt8(ascii: "\""):
                        guard skipString() else { return false }
                        continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["):
                        depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                    default:
                        break
                    }
                    index += 1
                    if depth == 0 { return true }
                }
                return false
            default:
                let start = index
                while index < bytes.count, !",}] \t\r\n".utf8.contains(bytes[index]) { index += 1 }
                return index > start
            }
        }

        /// Skips a string literal, escapes included; the index ends after its closing quote.
        private mutating func skipString() -> Bool {
            guard take(UInt8(ascii: "\"")) else { return false }
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\\"): index += 2
                case UInt8(ascii: "\""):
                    index += 1
                    return true
                default: index += 1
                }
            }
            return false
        }

        private mutating func skipSpace() {
            while index < bytes.count, " \t\r\n".utf8.contains(bytes[index]) { index += 1 }
        }

        private mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }
    }
}
