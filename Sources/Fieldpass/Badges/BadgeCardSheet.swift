package import Foundation
import QRCode

/// Printable badge cards, one SVG document per page of ``BadgePaper``: ID-1 cards edge to
/// edge with cutting marks around the grid, each with the company's name, the badge's QR code,
/// the person's name and full email (``CardText``: wrapped or shrunk, never cut) and the
/// badge's expiry. A card never crosses a page.
package enum BadgeCardSheet {
    package struct Card: Sendable {
        package let displayName: String?
        package let email: String
        package let badge: String
        package let expiresAt: Date

        package init(displayName: String?, email: String, badge: String, expiresAt: Date) {
            self.displayName = displayName
            self.email = email
            self.badge = badge
            self.expiresAt = expiresAt
        }
    }

    /// The pages of `cards` for `company`, in order.
    package static func pages(_ cards: [Card], company: String, paper: BadgePaper) throws -> [String] {
        try stride(from: 0, to: cards.count, by: paper.cardsPerPage).map { first in
            try page(Array(cards[first..<min(first + paper.cardsPerPage, cards.count)]), company: company, paper: paper)
        }
    }

    private static func page(_ cards: [Card], company: String, paper: BadgePaper) throws -> String {
        let (left, top) = paper.origin
        var body = marks(paper)
        for (index, card) in cards.enumerated() {
            let x = left + Double(index % BadgePaper.columns) * BadgePaper.cardWidth
            let y = top + Double(index / BadgePaper.columns) * BadgePaper.cardHeight
            body += try self.card(card, company: company, x: x, y: y)
        }
        let (width, height) = (format(paper.width), format(paper.height))
        return #"<svg xmlns="http://www.w3.org/2000/svg" width="\#(width)mm" height="\#(height)mm" viewBox="0 0 \#(width) \#(height)">"#
            + ##"<rect width="\##(width)" height="\##(height)" fill="#fff"/>"## + body + "</svg>\n"
    }

    /// Short lines outside the grid on every cutting line, which a guillotine or a ruler lines up with.
    private static func marks(_ paper: BadgePaper) -> String {
        let (left, top) = paper.origin
        let right = left + Double(BadgePaper.columns) * BadgePaper.cardWidth
        let bottom = top + Double(paper.rows) * BadgePaper.cardHeight
        let (gap, length) = (BadgePaper.markGap, BadgePaper.markLength)
        var lines: [(Double, Double, Double, Double)] = []
        for column in 0...BadgePaper.columns {
            let x = left + Double(column) * BadgePaper.cardWidth
            lines += [(x, top - gap - length, x, top - gap), (x, bottom + gap, x, bottom + gap + length)]
        }
        for row in 0...paper.rows {
            let y = top + Double(row) * BadgePaper.cardHeight
            lines += [(left - gap - length, y, left - gap, y), (right + gap, y, right + gap + length, y)]
        }
        let path = lines.map { "M\(format($0.0)) \(format($0.1))L\(format($0.2)) \(format($0.3))" }.joined()
        return ##"<path class="cut-marks" d="\##(path)" stroke="#000" stroke-width="0.2" fill="none"/>"##
    }

    private static let padding = 3.5
    private static let qrSide = 33.0
    private static let qrTop = 10.5

    private static func card(_ card: Card, company: String, x: Double, y: Double) throws -> String {
        let (width, height) = (BadgePaper.cardWidth, BadgePaper.cardHeight)
        let full = width - 2 * padding
        let columnX = padding + qrSide + 2.5
        let column = width - padding - columnX
        let qr = try QRCodeSVG.render(card.badge, label: "Badge of \(card.email)")
        var texts = [
            text(CardText(company, breaks: .words, width: full, size: 3, minSize: 2.2, maxLines: 1, bold: true), x: padding, top: 3.2),
            text(
                CardText("Scan at the tablet, then type your PIN.", breaks: .words, width: full, size: 2.3, minSize: 2, maxLines: 1),
                x: padding, top: height - padding - 2.3),
        ]
        var top = qrTop
        if let name = card.displayName, !name.isEmpty {
            let set = CardText(name, breaks: .words, width: column, size: 3.6, minSize: 2.8, maxLines: 2, bold: true)
            texts.append(text(set, x: columnX, top: top))
            top += Double(set.lines.count) * set.size * 1.25 + 1
        }
        let email = CardText(card.email, breaks: .email, width: column, size: 2.8, minSize: 2, maxLines: 3)
        texts.append(text(email, x: columnX, top: top))
        let expiry = "Valid until \(card.expiresAt.formatted(.iso8601.year().month().day()))"
        texts.append(text(CardText(expiry, breaks: .words, width: column, size: 2.5, minSize: 2, maxLines: 1), x: columnX, top: 39))
        return #"<g class="card" transform="translate(\#(format(x)) \#(format(y)))">"#
            + ##"<rect class="card-edge" width="\##(width)" height="\##(height)" fill="none" stroke="#bbb" stroke-width="0.1"/>"##
            + #"<svg x="\#(format(padding))" y="\#(format(qrTop))" width="\#(format(qrSide))" height="\#(format(qrSide))""#
            + qr.dropFirst(#"<svg xmlns="http://www.w3.org/2000/svg""#.count)
            + texts.joined() + "</g>"
    }

    /// `set`'s lines, the first one's top at `top`.
    private static func text(_ set: CardText, x: Double, top: Double) -> String {
        set.lines.enumerated().map { index, line in
            let baseline = top + set.size * (0.8 + 1.25 * Double(index))
            return #"<text x="\#(format(x))" y="\#(format(baseline))" font-family="sans-serif" font-size="\#(format(set.size))""#
                + (set.bold ? #" font-weight="bold""# : "")
                + #" textLength="\#(format(line.width))" lengthAdjust="spacingAndGlyphs">\#(escaped(line.text))</text>"#
        }.joined()
    }

    /// Millimetres to a tenth of a micrometre: enough for print, short in the document.
    private static func format(_ value: Double) -> String {
        String(format: "%.4f", value).replacing(/\.?0+$/, with: "")
    }

    /// Text for an XML text node or attribute.
    private static func escaped(_ text: String) -> String {
        text.unicodeScalars.map { scalar in
            switch scalar {
            case "&": "&amp;"
            case "<": "&lt;"
            case ">": "&gt;"
            case "\"": "&quot;"
            case "'": "&apos;"
            case "\t", "\n", "\r", " "..."\u{D7FF}", "\u{E000}"..."\u{FFFD}", "\u{10000}"...: String(scalar)
            default: "\u{FFFD}"
            }
        }.joined()
    }
}
