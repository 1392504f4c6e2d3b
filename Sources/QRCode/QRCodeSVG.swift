/// Draws a short text as a QR code in an SVG document, for a page or an `image/svg+xml` response.
public enum QRCodeSVG {
    /// The light border every reader needs around the code, in modules (ISO/IEC 18004).
    private static let quietZone = 4

    /// An SVG document of `text` as a QR code (error correction level M, 8-bit mode), with a
    /// white background and a 4-module quiet zone. One SVG user unit is one module, so the
    /// code scales to `width` × `height` pixels when given and to its container otherwise.
    /// `label` is what a screen reader says for the image. There is no XML declaration, so
    /// the document can also stand inside an HTML page.
    public static func render(_ text: String, label: String, width: Int? = nil, height: Int? = nil) throws(QRCodeError) -> String {
        var size = ""
        if let width {
            guard width > 0 else { throw .invalidSize(width) }
            size += #" width="\#(width)""#
        }
        if let height {
            guard height > 0 else { throw .invalidSize(height) }
            size += #" height="\#(height)""#
        }
        let drawing = try drawing(text)
        let side = drawing.side
        return #"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \#(side) \#(side)"\#(size)"#
            + #" role="img" aria-label="\#(escaped(label))" shape-rendering="crispEdges">"#
            + ##"<rect width="\##(side)" height="\##(side)" fill="#fff"/>"##
            + ##"<path fill="#000" d="\##(drawing.path)"/></svg>"##
    }

    /// What ``render(_:label:width:height:)`` draws, for a page template that writes the
    /// `<svg>` element itself (so that its engine escapes every value): the side of the
    /// square in modules, quiet zone included, and the dark modules as one path's data.
    public struct Drawing: Sendable, Equatable {
        public let side: Int
        /// Only `M`, `h`, `v`, `z`, digits, spaces and `-`: nothing any escaping changes.
        public let path: String
    }

    /// `text` as a QR code's ``Drawing``.
    public static func drawing(_ text: String) throws(QRCodeError) -> Drawing {
        let matrix = try QRMatrix(encoding: text)
        return Drawing(side: matrix.width + 2 * quietZone, path: path(matrix))
    }

    /// The dark modules as one path: each run of dark modules in a row is one rectangle, which
    /// keeps the document small and leaves no hairline seams between neighbouring modules.
    private static func path(_ matrix: QRMatrix) -> String {
        var path = ""
        for y in 0..<matrix.width {
            var x = 0
            while x < matrix.width {
                guard matrix[x: x, y: y] else {
                    x += 1
                    continue
                }
                let start = x
                while x < matrix.width && matrix[x: x, y: y] { x += 1 }
                path += "M\(start + quietZone) \(y + quietZone)h\(x - start)v1h-\(x - start)z"
            }
        }
        return path
    }

    /// The references for the five characters that mean something in XML markup: with all five
    /// replaced, the value is safe between either kind of quote.
    private static let references: [Unicode.Scalar: String] = ["&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&apos;"]

    /// `text` for an XML attribute value. Characters XML 1.0 cannot hold at all, even as
    /// references (most control characters), become U+FFFD so the document stays well formed.
    private static func escaped(_ text: String) -> String {
        text.unicodeScalars.map { scalar in
            switch scalar {
            case "\t", "\n", "\r", " "..."\u{D7FF}", "\u{E000}"..."\u{FFFD}", "\u{10000}"...: references[scalar] ?? String(scalar)
            default: "\u{FFFD}"
            }
        }.joined()
    }
}
