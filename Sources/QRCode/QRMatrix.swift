internal import CQRencode
// For errno and ERANGE: Foundation brings the platform's C library along.
internal import Foundation

/// The modules of one QR code, copied out of libqrencode so that its struct is freed at once.
struct QRMatrix: Sendable {
    /// The symbol's version, 1 to 40.
    let version: Int
    /// Modules per side, without the quiet zone: 17 + 4 × version.
    let width: Int
    /// Row after row, `true` for a dark module.
    private let modules: [Bool]

    /// Encodes `text`'s UTF-8 bytes as one 8-bit segment at error correction level M, in the
    /// smallest version that holds them. One 8-bit segment keeps every byte as it is, so case
    /// survives without libqrencode's case-sensitivity flag, and a NUL is encoded, not an end.
    init(encoding text: String) throws(QRCodeError) {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { throw .emptyText }
        // libqrencode takes the length as a C int; a longer text could never fit anyway.
        guard let size = Int32(exactly: bytes.count) else { throw .textTooLong(byteCount: bytes.count) }
        let encoded = bytes.withUnsafeBufferPointer { QRcode_encodeData(size, $0.baseAddress, 0, QR_ECLEVEL_M) }
        guard let code = encoded else {
            throw errno == ERANGE ? .textTooLong(byteCount: bytes.count) : .encodingFailed(errno: errno)
        }
        defer { QRcode_free(code) }
        version = Int(code.pointee.version)
        width = Int(code.pointee.width)
        // Bit 0 of each byte is the module's colour; the other bits say how libqrencode placed it.
        modules = UnsafeBufferPointer(start: code.pointee.data, count: width * width).map { $0 & 1 == 1 }
    }

    /// Whether the module in column `x` of row `y` is dark.
    subscript(x x: Int, y y: Int) -> Bool { modules[y * width + x] }
}
