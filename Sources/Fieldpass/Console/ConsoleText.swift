/// A text as a console page shows it where a line may be too narrow for it: an email, a path,
/// a dotted action name. Its long words get break opportunities (`<wbr>`, which copying the
/// text leaves out) before each `.`, `@`, `/`, `_` and `+` inside them and after each `-`, so
/// that a line breaks between the parts a person reads (`maria.fernandez-lopez1` /
/// `@example.com`) and never inside one. Templates show it with the `text` partial, which
/// escapes every piece as any value.
struct ConsoleText: Sendable, CustomStringConvertible {
    struct Piece: Sendable {
        let value: String
        /// Whether a line may break before this piece.
        let breakBefore: Bool
    }

    let pieces: [Piece]

    /// The text itself, for an attribute or a plain `{{value}}`.
    var description: String { pieces.map(\.value).joined() }

    init(_ text: String) {
        var pieces: [Piece] = []
        var current = ""
        var breakBefore = false
        for word in text.split(separator: " ", omittingEmptySubsequences: false).enumerated() {
            if word.offset > 0 { current += " " }
            guard Self.isLong(word.element) else {
                current += word.element
                continue
            }
            let characters = Array(word.element)
            for (index, character) in characters.enumerated() {
                let inside = index > 0 && index < characters.count - 1
                if inside, Self.breaksBefore.contains(character) || (characters[index - 1] == "-") {
                    pieces.append(Piece(value: current, breakBefore: breakBefore))
                    (current, breakBefore) = ("", true)
                }
                current.append(character)
            }
        }
        pieces.append(Piece(value: current, breakBefore: breakBefore))
        self.pieces = pieces
    }

    private static let breaksBefore: Set<Character> = [".", "@", "/", "_", "+"]

    /// A word worth breaking: an email, a path, or a run of dotted or joined names, as opposed
    /// to a word of a sentence and its full stop.
    private static func isLong(_ word: Substring) -> Bool {
        word.contains("@") || word.contains("/") || word.count > 10
    }
}
