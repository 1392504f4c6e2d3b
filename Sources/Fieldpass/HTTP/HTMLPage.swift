import HTTPTypes
import Hummingbird

/// A minimal, self-contained HTML page; every dynamic string is escaped.
struct HTMLPage: Sendable {
    let title: String
    /// The body below the heading, as HTML whose dynamic parts are already escaped.
    let bodyHTML: String

    /// A page with one paragraph of plain text.
    init(title: String, message: String) {
        self.init(title: title, bodyHTML: "<p>\(Self.escape(message))</p>")
    }

    init(title: String, bodyHTML: String) {
        self.title = title
        self.bodyHTML = bodyHTML
    }

    func response(status: HTTPResponse.Status, headers extraHeaders: HTTPFields = [:]) -> Response {
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(Self.escape(title))</title>
            <style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}\
            .code{font:700 2rem/1.2 ui-monospace,monospace;letter-spacing:.15em}dt{font-weight:600}\
            button{font-size:1.1rem;padding:.6rem 1.2rem}</style>
            </head><body><h1>\(Self.escape(title))</h1>\(bodyHTML)</body></html>
            """
        return Self.response(html: html, status: status, styles: "'unsafe-inline'", headers: extraHeaders)
    }

    /// An HTML answer with the headers every page of Fieldpass sends: never cached, never
    /// framed, no scripts or outside resources, and no referrer (URLs may carry ids).
    /// `styles` is where its stylesheet may come from.
    static func response(html: String, status: HTTPResponse.Status, styles: String, headers extraHeaders: HTTPFields = [:]) -> Response {
        var headers = extraHeaders
        headers[.contentType] = "text/html; charset=utf-8"
        secure(&headers, styles: styles)
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// Sets those headers but the content type, on a page or on a redirect between pages.
    static func secure(_ headers: inout HTTPFields, styles: String) {
        headers[.cacheControl] = "no-store"
        headers[.contentSecurityPolicy] = "default-src 'none'; style-src \(styles); frame-ancestors 'none'; base-uri 'none'"
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        headers[noSniff] = "nosniff"
    }

    /// `X-Content-Type-Options`: with `nosniff`, a browser takes the content type as sent.
    static let noSniff = HTTPField.Name("X-Content-Type-Options")!

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
