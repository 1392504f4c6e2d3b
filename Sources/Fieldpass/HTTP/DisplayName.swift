import FieldpassDomain

/// A name people read, such as a device's or a team's: 1–100 printable characters, trimmed.
enum DisplayName {
    static func validated(_ text: String, field: String) throws -> String {
        guard let name = PrintableName.normalized(text) else {
            throw APIError.invalidRequest("\(field) must be 1 to 100 printable characters.")
        }
        return name
    }
}
