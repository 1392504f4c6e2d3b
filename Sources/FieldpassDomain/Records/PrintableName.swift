import Foundation

/// A name people read, such as a device's or a team's: 1–100 printable characters, trimmed.
package enum PrintableName {
    /// `text` trimmed of spaces, or `nil` when that is empty, longer than 100 characters or
    /// holds a control character.
    package static func normalized(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard (1...100).contains(trimmed.count),
            !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { return nil }
        return trimmed
    }
}
