import Testing
@testable import QRCode

@Suite("QR code SVG")
struct QRCodeSVGTests {
    @Test("the document parses as XML: an svg with its accessible name and size, a background and one path")
    func wellFormed() throws {
        let elements = try XMLElements(parsing: QRCodeSVG.render(Samples.badge, label: "Badge of a worker", width: 240, height: 240))
        #expect(elements.all.map(\.name) == ["svg", "rect", "path"])
        #expect(elements.all.allSatisfy { $0.namespace == "http://www.w3.org/2000/svg" })
        let root = try #require(elements.root)
        #expect(root.attributes["role"] == "img")
        #expect(root.attributes["aria-label"] == "Badge of a worker")
        #expect(root.attributes["shape-rendering"] == "crispEdges")
        #expect(root.attributes["width"] == "240")
        #expect(root.attributes["height"] == "240")
    }

    // Byte mode at level M holds 26 bytes in version 2 and 62 in version 4 (ISO/IEC 18004, table 7).
    @Test(
        "the viewBox is the code's modules and the quiet zone on each side",
        arguments: [(Samples.enrollmentCode, 2, 25), (Samples.badge, 4, 33)]
    )
    func viewBox(text: String, version: Int, modules: Int) throws {
        let matrix = try QRMatrix(encoding: text)
        #expect(matrix.version == version)
        #expect(matrix.width == modules)
        let root = try #require(try XMLElements(parsing: QRCodeSVG.render(text, label: "code")).root)
        #expect(root.attributes["viewBox"] == "0 0 \(modules + 8) \(modules + 8)")
        #expect(root.attributes["width"] == nil)
        #expect(root.attributes["height"] == nil)
    }

    @Test("the path draws exactly the dark modules, each row's runs as one rectangle each, inside the quiet zone")
    func pathMatchesModules() throws {
        let matrix = try QRMatrix(encoding: Samples.enrollmentCode)
        let elements = try XMLElements(parsing: QRCodeSVG.render(Samples.enrollmentCode, label: "code"))
        let path = try #require(elements.all.last?.attributes["d"])
        var drawn = Set<[Int]>()
        var previousEnd: [Int]?
        for run in path.matches(of: /M(\d+) (\d+)h(\d+)v1h-(\d+)z/) {
            let (x, y, length) = (Int(run.1)! - 4, Int(run.2)! - 4, Int(run.3)!)
            #expect(run.3 == run.4)
            #expect(x >= 0 && y >= 0 && x + length <= matrix.width && y < matrix.width)
            // A run that starts where the previous one in its row ended should have been one run.
            #expect(previousEnd != [x, y])
            previousEnd = [x + length, y]
            for column in x..<(x + length) { #expect(drawn.insert([column, y]).inserted) }
        }
        #expect(path.replacing(/M\d+ \d+h\d+v1h-\d+z/, with: "").isEmpty)
        let dark = Set((0..<matrix.width).flatMap { y in (0..<matrix.width).filter { x in matrix[x: x, y: y] }.map { [$0, y] } })
        #expect(drawn == dark)
    }

    @Test("the label is escaped: the attribute reads back as given, and XML's forbidden characters become U+FFFD")
    func labelEscaped() throws {
        let label = #"Badge of "Ann" & <Bob>'s team"#
        let svg = try QRCodeSVG.render(Samples.badge, label: label + "\u{1}")
        #expect(svg.contains(#"aria-label="Badge of &quot;Ann&quot; &amp; &lt;Bob&gt;&apos;s team\#u{FFFD}""#))
        #expect(try XMLElements(parsing: svg).root?.attributes["aria-label"] == label + "\u{FFFD}")
    }

    @Test("an empty text throws")
    func emptyText() {
        #expect(throws: QRCodeError.emptyText) { try QRCodeSVG.render("", label: "code") }
    }

    @Test("a text too long for any QR code throws instead of crashing")
    func tooLong() {
        #expect(throws: QRCodeError.textTooLong(byteCount: 5_000)) {
            try QRCodeSVG.render(String(repeating: "A", count: 5_000), label: "code")
        }
    }

    @Test("a width or height that is not positive throws", arguments: [0, -240])
    func invalidSize(size: Int) {
        #expect(throws: QRCodeError.invalidSize(size)) { try QRCodeSVG.render(Samples.badge, label: "code", width: size) }
        #expect(throws: QRCodeError.invalidSize(size)) { try QRCodeSVG.render(Samples.badge, label: "code", height: size) }
    }
}
