import QRCode

/// A QR code as a console page draws it (the `qr` partial): the drawing, and what it says to
/// a screen reader.
struct ConsoleQRCode {
    let side: Int
    let path: String
    let label: String

    init(_ text: String, label: String) throws {
        let drawing = try QRCodeSVG.drawing(text)
        side = drawing.side
        path = drawing.path
        self.label = label
    }
}
