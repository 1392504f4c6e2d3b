import Foundation
import Hummingbird

/// The fields of a console form (`application/x-www-form-urlencoded`, at most 16 KiB).
/// Anything else reads as no fields, which no form accepts: it lacks the anti-CSRF token.
enum ConsoleForm {
    static let maxSize = 16 * 1024

    static func fields(_ request: inout Request) async throws -> [String: String] {
        guard request.headers[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true else { return [:] }
        let body = try await request.collectBody(upTo: maxSize)
        guard let text = String(validating: body.readableBytesView, as: UTF8.self) else { return [:] }
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]), let value = decode(parts.count > 1 ? parts[1] : "") else { continue }
            // A repeated field is ambiguous; the first one counts, as in most servers.
            if fields[name] == nil { fields[name] = value }
        }
        return fields
    }

    private static func decode(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
