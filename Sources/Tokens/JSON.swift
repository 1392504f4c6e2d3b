internal import Foundation

/// The module's JSON settings in one place, with errors mapped to `TokenError`.
enum JSON {
    /// Encodes with sorted keys and unescaped slashes (so RFC 7638 input is canonical)
    /// and dates as seconds since 1970 (the JWT NumericDate).
    static func encode(_ value: some Encodable) throws(TokenError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .secondsSince1970
        do {
            return try encoder.encode(value)
        } catch {
            throw .malformed("cannot encode JSON: \(error)")
        }
    }

    /// Decodes `data`; `context` names the document in the error ("header", "claims", ...).
    static func decode<T: Decodable>(_ type: T.Type, from data: Data, context: String) throws(TokenError) -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        do {
            return try decoder.decode(type, from: data)
        } catch {
            throw .malformed("\(context) is not the expected JSON: \(error)")
        }
    }
}
