import Foundation
import Testing
import QRCode

@Suite("QR code read back by zbarimg")
struct QRCodeDecodeTests {
    // zbarimg opens an SVG through ImageMagick's own renderer, which finds no code in these
    // documents; librsvg draws them as a browser does, into a PNG that zbarimg reads.
    static let rsvgConvert = Tool(name: "rsvg-convert", debianPackage: "librsvg2-bin")
    static let zbarimg = Tool(name: "zbarimg", debianPackage: "zbar-tools")

    @Test("zbarimg reads the text back", arguments: [Samples.enrollmentCode, Samples.badge, Samples.mixedCase])
    func decode(text: String) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("qrcode-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let svg = folder.appendingPathComponent("code.svg")
        let png = folder.appendingPathComponent("code.png")
        // Without a width or height, one module is one pixel: zoom 8 makes it 8 pixels.
        try QRCodeSVG.render(text, label: "code").write(to: svg, atomically: true, encoding: .utf8)
        try Self.rsvgConvert.run(["--zoom", "8", "--output", png.path, svg.path])
        #expect(try Self.zbarimg.run(["--raw", "-q", png.path]) == text + "\n")
    }
}
