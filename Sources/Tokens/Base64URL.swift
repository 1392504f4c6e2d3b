/// base64url (RFC 4648 §5) on byte arrays, without Foundation's string round trips: every
/// token signed or verified passes through here several times.
enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Each byte's 6-bit value, or 0xFF for a byte outside the alphabet.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, character) in alphabet.enumerated() { table[Int(character)] = UInt8(value) }
        return table
    }()

    /// The unpadded encoding of `bytes`.
    static func encode(_ bytes: [UInt8]) -> String {
        let length = (bytes.count * 4 + 2) / 3
        return String(unsafeUninitializedCapacity: length) { output in
            var out = 0
            var index = 0
            while index + 3 <= bytes.count {
                let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
                for shift in [18, 12, 6, 0] {
                    output[out] = alphabet[Int(chunk >> UInt32(shift) & 0x3F)]
                    out += 1
                }
                index += 3
            }
            let rest = bytes.count - index
            if rest > 0 {
                let chunk = UInt32(bytes[index]) << 16 | (rest == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
                for shift in [18, 12, 6].prefix(rest + 1) {
                    output[out] = alphabet[Int(chunk >> UInt32(shift) & 0x3F)]
                    out += 1
                }
            }
            return out
        }
    }

    /// The bytes `text` encodes. Trailing "=" is tolerated (some JWK publishers pad) but must
    /// then be exact; any other character outside the alphabet, or a length no encoding
    /// has, gives nil.
    static func decode(_ text: [UInt8]) -> [UInt8]? {
        var count = text.count
        if count > 0, text[count - 1] == UInt8(ascii: "=") {
            guard count % 4 == 0 else { return nil }
            count -= 1
            if count > 0, text[count - 1] == UInt8(ascii: "=") { count -= 1 }
        }
        guard count % 4 != 1 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count * 3 / 4)
        var chunk: UInt32 = 0
        var filled = 0
        for index in 0..<count {
            let value = values[Int(text[index])]
            guard value != 0xFF else { return nil }
            chunk = chunk << 6 | UInt32(value)
            filled += 1
            if filled == 4 {
                bytes.append(UInt8(truncatingIfNeeded: chunk >> 16))
                bytes.append(UInt8(truncatingIfNeeded: chunk >> 8))
                bytes.append(UInt8(truncatingIfNeeded: chunk))
                chunk = 0
                filled = 0
            }
        }
        // 2 or 3 leftover characters carry 1 or 2 bytes; their unused low bits are ignored.
        if filled == 2 {
            bytes.append(UInt8(truncatingIfNeeded: chunk >> 4))
        } else if filled == 3 {
            bytes.append(UInt8(truncatingIfNeeded: chunk >> 10))
            bytes.append(UInt8(truncatingIfNeeded: chunk >> 2))
        }
        return bytes
    }
}
