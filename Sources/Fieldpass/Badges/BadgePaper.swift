/// The paper a sheet of badge cards is printed on, and how the cards sit on it: ID-1 cards
/// (85.6 × 53.98 mm, a payment card's size) edge to edge in two columns, the grid centred,
/// with room around it for the cutting marks and for any printer's unprintable border.
package enum BadgePaper: String, CaseIterable, Sendable {
    case a4
    case letter

    /// The page, in millimetres.
    package var width: Double {
        switch self {
        case .a4: 210
        case .letter: 215.9
        }
    }

    package var height: Double {
        switch self {
        case .a4: 297
        case .letter: 279.4
        }
    }

    package static let cardWidth = 85.6
    package static let cardHeight = 53.98
    package static let columns = 2

    /// As many rows as leave at least ``margin`` above and below the grid.
    package var rows: Int { Int((height - 2 * Self.margin) / Self.cardHeight) }

    package var cardsPerPage: Int { rows * Self.columns }

    /// The least room between the grid and the page's edge: the cutting marks (``markLength``,
    /// ``markGap`` from the grid) and a printer's border of up to 5 mm.
    package static let margin = markGap + markLength + 5
    package static let markGap = 2.0
    package static let markLength = 5.0

    /// The top left corner of the grid.
    package var origin: (x: Double, y: Double) {
        ((width - Double(Self.columns) * Self.cardWidth) / 2, (height - Double(rows) * Self.cardHeight) / 2)
    }
}
