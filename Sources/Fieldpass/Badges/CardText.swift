/// Text set to fit a box on a badge card: wrapped at the places a reader expects, shrunk down
/// to a smallest size, and as a last resort squeezed. Widths are estimated from Helvetica's
/// advance widths; each line is then drawn with that width as its SVG `textLength`, so the
/// renderer fits the glyphs of whatever font it has to the width measured here and no line
/// leaves its box, whatever the font.
package struct CardText: Sendable, Equatable {
    package struct Line: Sendable, Equatable {
        package let text: String
        /// In millimetres, at most the box's width.
        package let width: Double
    }

    package let lines: [Line]
    /// The font size, in millimetres.
    package let size: Double
    /// Set in the bold weight, whose widths are counted wider.
    package let bold: Bool

    /// How `text` breaks: at spaces (a name), or after `@` and at `.`, `-`, `_` and `+` (an
    /// email, whose every character must stay readable).
    package enum Breaks: Sendable {
        case words
        case email
    }

    /// `text` in at most `maxLines` lines of at most `width`, at the largest size from `size`
    /// down to `minSize` (in steps of 0.1 mm) at which it fits; below that, cut into
    /// `maxLines` even pieces and squeezed to `width`.
    package init(_ text: String, breaks: Breaks, width: Double, size: Double, minSize: Double, maxLines: Int, bold: Bool = false) {
        self.bold = bold
        let pieces = Self.pieces(text, breaks)
        var candidate = size
        while candidate >= minSize - 0.001 {
            if let lines = Self.wrap(pieces, width: width, size: candidate, maxLines: maxLines, bold: bold) {
                self.lines = lines
                self.size = candidate
                return
            }
            candidate -= 0.1
        }
        let characters = Array(text)
        let perLine = max(1, (characters.count + maxLines - 1) / maxLines)
        lines = stride(from: 0, to: characters.count, by: perLine).map { start in
            let piece = String(characters[start..<min(start + perLine, characters.count)])
            return Line(text: piece, width: min(width, Self.width(of: piece, size: minSize, bold: bold)))
        }
        self.size = minSize
    }

    /// The pieces a line may end after, in order.
    private static func pieces(_ text: String, _ breaks: Breaks) -> [String] {
        var pieces: [String] = []
        var current = ""
        for character in text {
            switch (breaks, character) {
            case (.words, " "):
                pieces.append(current + " ")
                current = ""
            case (.email, "."):
                // Before a dot, so that a line never ends in one.
                if !current.isEmpty { pieces.append(current) }
                current = "."
            case (.email, "@"), (.email, "-"), (.email, "_"), (.email, "+"):
                pieces.append(current + String(character))
                current = ""
            default:
                current.append(character)
            }
        }
        if !current.isEmpty { pieces.append(current) }
        return pieces
    }

    /// The pieces joined greedily into lines no wider than `width`, or `nil` when that takes
    /// more than `maxLines` lines or one piece is wider on its own.
    private static func wrap(_ pieces: [String], width: Double, size: Double, maxLines: Int, bold: Bool) -> [Line]? {
        var lines: [Line] = []
        var current = ""
        for piece in pieces {
            let joined = current + piece
            if Self.width(of: joined.trimmingTrailingSpace, size: size, bold: bold) <= width {
                current = joined
                continue
            }
            guard !current.isEmpty, Self.width(of: piece.trimmingTrailingSpace, size: size, bold: bold) <= width else { return nil }
            lines.append(line(current, size: size, bold: bold))
            current = piece
        }
        if !current.isEmpty { lines.append(line(current, size: size, bold: bold)) }
        return lines.count <= maxLines ? lines : nil
    }

    private static func line(_ text: String, size: Double, bold: Bool) -> Line {
        let text = text.trimmingTrailingSpace
        return Line(text: text, width: width(of: text, size: size, bold: bold))
    }

    /// The width of `text` at `size`, in millimetres.
    package static func width(of text: String, size: Double, bold: Bool = false) -> Double {
        let units = text.unicodeScalars.reduce(0) { sum, scalar in sum + advance(scalar) }
        return Double(units) / 1000 * size * (bold ? 1.07 : 1)
    }

    /// Helvetica's advance width of printable ASCII, in thousandths of the font size; other
    /// characters count as wide ones.
    private static func advance(_ scalar: Unicode.Scalar) -> Int {
        guard (32...126).contains(scalar.value) else { return 700 }
        return asciiAdvances[Int(scalar.value) - 32]
    }

    private static let asciiAdvances = [
        278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,  // space to /
        556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,  // 0 to ?
        1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,  // @ to O
        667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,  // P to _
        333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,  // ` to o
        556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,  // p to ~
    ]
}

extension String {
    fileprivate var trimmingTrailingSpace: String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
