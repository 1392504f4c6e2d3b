import Configuration
import FieldpassDomain
import Foundation

/// Typed, validated reads over a `ConfigReader`; every failure names its key.
///
/// Values are read as text and parsed here, so that a mistyped value stops start-up instead
/// of silently falling back to the default. Every key asked for is noted in ``read``: a
/// settings type declares its keys by reading them, and a key of the file that no type
/// read is unknown (``FieldpassConfiguration/parse(yaml:environment:)``).
struct SettingsReader: Sendable {
    private let reader: ConfigReader
    /// The keys read so far.
    let read = ReadKeys()

    init(reader: ConfigReader) {
        self.reader = reader
    }

    /// Whether `key` has a value; asking counts as reading it.
    func isSet(_ key: [String]) -> Bool {
        value(at: key) != nil
    }

    private func value(at key: [String]) -> String? {
        read.insert(key)
        return reader.string(forKey: ConfigKey(key))
    }

    private func values(at key: [String]) -> [String]? {
        read.insert(key)
        return reader.stringArray(forKey: ConfigKey(key))
    }

    func string(_ key: [String], default defaultValue: String? = nil) throws(ConfigurationError) -> String {
        guard let found = value(at: key) ?? defaultValue else {
            throw ConfigurationError(key: dotted(key), "is required")
        }
        guard !found.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ConfigurationError(key: dotted(key), "must not be empty")
        }
        return found
    }

    /// A value that may be absent (but not empty when present).
    func optionalString(_ key: [String]) throws(ConfigurationError) -> String? {
        guard value(at: key) != nil else { return nil }
        return try string(key)
    }

    func int(_ key: [String], default defaultValue: Int, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int {
        guard let text = value(at: key) else { return defaultValue }
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)), range.contains(value) else {
            throw ConfigurationError(
                key: dotted(key),
                "must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'"
            )
        }
        return value
    }

    func bool(_ key: [String], default defaultValue: Bool) throws(ConfigurationError) -> Bool {
        guard let text = value(at: key) else { return defaultValue }
        switch text.trimmingCharacters(in: .whitespaces).lowercased() {
        case "true": return true
        case "false": return false
        default: throw ConfigurationError(key: dotted(key), "must be true or false, not '\(text)'")
        }
    }

    func strings(_ key: [String], default defaultValue: [String]? = nil) throws(ConfigurationError) -> [String] {
        guard let list = values(at: key) ?? defaultValue else {
            throw ConfigurationError(key: dotted(key), "is required (a list)")
        }
        return list.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// A mapping of text to text (`roles_from_idp.map`): in the file a YAML mapping, which
    /// ``YAMLConfigFlattener`` keeps as one JSON object, and so a JSON object in an environment
    /// variable. `nil` when absent.
    func mapping(_ key: [String]) throws(ConfigurationError) -> [String: String]? {
        guard let text = value(at: key) else { return nil }
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            let mapping = object as? [String: String]
        else {
            throw ConfigurationError(key: dotted(key), "must be a mapping of values to names, like {Fieldpass.Admin: admin}")
        }
        return mapping
    }

    /// An absolute http(s) URL without query or fragment, with any trailing `/` removed.
    func baseURL(_ key: [String], default defaultValue: String? = nil) throws(ConfigurationError) -> String {
        let text = try absoluteURL(key, default: defaultValue).text
        return text.hasSuffix("/") ? String(text.dropLast()) : text
    }

    /// An OpenID Connect issuer, kept exactly as written (a trailing `/` is part of it, since
    /// ID tokens are compared to it character by character). Plain `http` only on loopback,
    /// where no one can listen in between.
    func issuerURL(_ key: [String]) throws(ConfigurationError) -> String {
        let (text, components) = try absoluteURL(key, default: nil)
        if components.scheme?.lowercased() == "http" {
            guard LoopbackHost.contains(components.encodedHost ?? "") else {
                throw ConfigurationError(key: dotted(key), "must use https (plain http is allowed only on loopback), not '\(text)'")
            }
        }
        return text
    }

    /// `encodedHost`, not `host`: `host` decodes an IDNA name with ICU's UTS #46 tables, whose
    /// loading alone keeps 1.2 MB resident; a check for loopback or for any host needs no decoding.
    private func absoluteURL(
        _ key: [String], default defaultValue: String?
    ) throws(ConfigurationError) -> (text: String, components: URLComponents) {
        let text = try string(key, default: defaultValue)
        guard let components = URLComponents(string: text),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            components.encodedHost?.isEmpty == false, components.query == nil, components.fragment == nil
        else {
            throw ConfigurationError(key: dotted(key), "must be an absolute http(s) URL, not '\(text)'")
        }
        return (text, components)
    }

    func dotted(_ key: [String]) -> String { key.joined(separator: ".") }
}
