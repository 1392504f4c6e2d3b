/// Makes error text that came from outside (the IdP, the browser's query) safe to pass on.
enum LoginErrorText {
    /// An RFC 6749 error code: 1–64 characters of `[a-z0-9_]`, else `invalid_request`.
    static func code(_ raw: String) -> String {
        let isPlain =
            !raw.isEmpty && raw.count <= 64
            && raw.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
        return isPlain ? raw : "invalid_request"
    }

    /// Printable text of at most 200 characters (Unicode scalars, so combining marks count too).
    static func description(_ raw: String) -> String {
        let printable = raw.unicodeScalars.filter { !$0.properties.generalCategory.isControl }
        return String(String.UnicodeScalarView(printable.prefix(200)))
    }
}

extension Unicode.GeneralCategory {
    fileprivate var isControl: Bool {
        switch self {
        case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned: true
        default: false
        }
    }
}
