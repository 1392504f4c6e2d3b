import Hummingbird
import HTTPTypes

/// A minimal, self-contained HTML page; every dynamic string is escaped.
struct HTMLPage: Sendable {
    let title: String
    let message: String

    func response(status: HTTPResponse.Status) -> Response {
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(Self.escape(title))</title>
            <style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}</style>
            </head><body><h1>\(Self.escape(title))</h1><p>\(Self.escape(message))</p></body></html>
            """
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        // The page never needs scripts, frames or outside resources.
        headers[.contentSecurityPolicy] = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
