import Foundation
import Testing
@testable import Fieldpass

@Suite("Badge cards")
struct BadgeCardSheetTests {
    @Test(arguments: BadgePaper.allCases) func theGridFitsThePageWithRoomForMarksAndAPrintersBorder(paper: BadgePaper) {
        let (left, top) = paper.origin
        #expect(left >= BadgePaper.margin && top >= BadgePaper.margin)
        #expect(left + 2 * BadgePaper.cardWidth <= paper.width - BadgePaper.margin)
        #expect(top + Double(paper.rows) * BadgePaper.cardHeight <= paper.height - BadgePaper.margin)
        // Not one more row would fit: the page is used.
        #expect(Double(paper.rows + 1) * BadgePaper.cardHeight > paper.height - 2 * BadgePaper.margin)
    }

    @Test func a4HoldsTenCardsAndLetterEight() {
        #expect(BadgePaper.a4.cardsPerPage == 10)
        #expect(BadgePaper.letter.cardsPerPage == 8)
    }

    @Test func anEmailBreaksAfterTheAtAndBeforeADotAndKeepsEveryCharacter() {
        let email = "maria.fernandez-lopez10@example-company.com"
        let set = CardText(email, breaks: .email, width: 43, size: 2.8, minSize: 2, maxLines: 3)
        #expect(set.lines.map(\.text).joined() == email)
        #expect(set.lines.count > 1)
        #expect(set.lines.allSatisfy { $0.width <= 43 && !$0.text.hasSuffix(".") })
        #expect(set.lines.dropLast().contains { $0.text.hasSuffix("@") })
    }

    @Test func textThatFitsKeepsItsSizeAndOneLine() {
        let set = CardText("Valid until 2027-12-06", breaks: .words, width: 43, size: 2.5, minSize: 2, maxLines: 1)
        #expect(set.size == 2.5 && set.lines.map(\.text) == ["Valid until 2027-12-06"])
    }

    @Test func textTooLongForItsLinesShrinksThenIsSqueezedNeverCut() {
        let name = "Konstantinos-Alexandros Papadopoulos-Vasilopoulou"
        let shrunk = CardText(name, breaks: .words, width: 43, size: 3.6, minSize: 2.8, maxLines: 2, bold: true)
        #expect(shrunk.lines.map(\.text).joined(separator: " ") == name)
        #expect(shrunk.lines.allSatisfy { $0.width <= 43 })
        let long = String(repeating: "konstantinos-alexandros.papadopoulos", count: 3) + "@example.com"
        let squeezed = CardText(long, breaks: .email, width: 43, size: 2.8, minSize: 2, maxLines: 3)
        #expect(squeezed.lines.count == 3 && squeezed.size == 2)
        #expect(squeezed.lines.map(\.text).joined() == long)
        #expect(squeezed.lines.allSatisfy { $0.width <= 43 })
    }

    @Test func aPageHoldsAtMostItsCardsAndEveryCardIsInsideIt() throws {
        let cards = (1...24).map { index in
            BadgeCardSheet.Card(
                displayName: "Worker \(index)", email: "worker\(index)@example.com", badge: "fpb_\(String(repeating: "A", count: 43))",
                expiresAt: Date(timeIntervalSince1970: 1_800_000_000))
        }
        let pages = try BadgeCardSheet.pages(cards, company: "Example & Co", paper: .a4)
        #expect(pages.count == 3)
        #expect(pages.map { $0.components(separatedBy: #"class="card""#).count - 1 } == [10, 10, 4])
        #expect(pages.allSatisfy { $0.hasPrefix(#"<svg xmlns="http://www.w3.org/2000/svg" width="210mm" height="297mm""#) })
        #expect(pages[0].contains("Example &amp; Co") && !pages[0].contains("Example & Co"))
    }
}
