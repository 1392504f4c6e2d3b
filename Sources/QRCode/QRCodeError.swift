/// Why a text could not be drawn as a QR code.
public enum QRCodeError: Error, Equatable, Sendable {
    /// The text is empty: a QR code needs at least one byte.
    case emptyText
    /// The text's UTF-8 bytes do not fit the largest QR code (version 40) at error correction level M.
    case textTooLong(byteCount: Int)
    /// A width or height that is not a positive number of pixels.
    case invalidSize(Int)
    /// libqrencode failed for another reason (such as memory); the number is its `errno`.
    case encodingFailed(errno: Int32)
}

extension QRCodeError: CustomStringConvertible {
    /// A one-line description of the failure.
    public var description: String {
        switch self {
        case .emptyText: "a QR code cannot encode an empty text"
        case .textTooLong(let byteCount): "a text of \(byteCount) bytes does not fit in a QR code at error correction level M"
        case .invalidSize(let size): "a QR code's width and height must be positive, not \(size)"
        case .encodingFailed(let errno): "libqrencode failed (errno \(errno))"
        }
    }
}
