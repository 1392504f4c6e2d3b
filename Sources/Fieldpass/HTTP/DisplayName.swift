import Foundation

/// A name people read, such as a device's or a team's: 1–100 printable characters, trimmed.
enum DisplayName {
    static func validated(_ text: String, field: String) throws -> String {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard (1...100).contains(trimmed.count),
            !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw APIError.invalidRequest("\(field) must be 1 to 100 printable characters.")
        }
        return trimmed
    }
}
