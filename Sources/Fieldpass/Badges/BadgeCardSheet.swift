package import Foundation
import QRCode

/// Printable badge cards as one SVG document: each card the size of a payment card (85.6 ×
/// 54 mm), with the badge's QR code, the person's email and the badge's expiry, two cards a
/// row on an A4-wide sheet. Cut along the grey lines.
package enum BadgeCardSheet {
    package struct Card: Sendable {
        package let email: String
        package let badge: String
        package let expiresAt: Date

        package init(email: String, badge: String, expiresAt: Date) {
            self.email = email
            self.badge = badge
            self.expiresAt = expiresAt
        }
    }

    private static let cardWidth = 85.6
    private static let cardHeight = 54.0
    private static let margin = 12.0
    private static let gap = 6.0

    /// The sheet of `cards`, in millimetres.
    package static func svg(_ cards: [Card]) throws -> String {
        let rows = (cards.count + 1) / 2
        let width = 2 * margin + 2 * cardWidth + gap
        let height = 2 * margin + Double(rows) * cardHeight + Double(max(rows - 1, 0)) * gap
        var body = ""
        for (index, card) in cards.enumerated() {
            let x = margin + Double(index % 2) * (cardWidth + gap)
            let y = margin + Double(index / 2) * (cardHeight + gap)
            body += try self.card(card, x: x, y: y)
        }
        return #"<svg xmlns="http://www.w3.org/2000/svg" width="\#(width)mm" height="\#(height)mm" viewBox="0 0 \#(width) \#(height)">"#
            + body + "</svg>\n"
    }

    private static func card(_ card: Card, x: Double, y: Double) throws -> String {
        let qrSize = Int(cardHeight) - 8
        let qr = try QRCodeSVG.render(card.badge, label: "Badge of \(card.email)", width: qrSize, height: qrSize)
        let expiry = card.expiresAt.formatted(.iso8601.year().month().day())
        return #"<g transform="translate(\#(x) \#(y))">"#
            + ##"<rect width="\##(cardWidth)" height="\##(cardHeight)" rx="3" fill="#fff" stroke="#999" stroke-width="0.3"/>"##
            + #"<g transform="translate(4 4)">\#(qr)</g>"#
            + #"<text x="\#(qrSize + 8)" y="14" font-family="sans-serif" font-size="3.6">\#(escaped(card.email))</text>"#
            + #"<text x="\#(qrSize + 8)" y="22" font-family="sans-serif" font-size="3">Valid until \#(expiry)</text>"#
            + #"<text x="\#(qrSize + 8)" y="48" font-family="sans-serif" font-size="2.6">Fieldpass badge: scan, then type your PIN</text>"#
            + "</g>"
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
