/// Converts P-256 ECDSA signatures between OpenSSL's DER `ECDSA-Sig-Value` and JOSE's
/// fixed 64-byte `r‖s` (RFC 7518 §3.4).
enum ECDSASignature {
    /// Bytes of one P-256 integer.
    static let componentLength = 32
    /// Bytes of a JOSE ES256 signature.
    static let rawLength = 2 * componentLength

    /// `r‖s`, each left-padded to 32 bytes; nil for anything but a short-form SEQUENCE of
    /// two INTEGERs that fit (P-256 signatures are always under 128 bytes of DER).
    static func raw(fromDER der: [UInt8]) -> [UInt8]? {
        guard der.count >= 8, der[0] == 0x30, Int(der[1]) == der.count - 2 else { return nil }
        var raw: [UInt8] = []
        raw.reserveCapacity(rawLength)
        var index = 2
        for _ in 0..<2 {
            guard index + 2 <= der.count, der[index] == 0x02 else { return nil }
            let end = index + 2 + Int(der[index + 1])
            guard end <= der.count else { return nil }
            let magnitude = der[(index + 2)..<end].drop { $0 == 0 }
            guard magnitude.count <= componentLength else { return nil }
            raw.append(contentsOf: repeatElement(0, count: componentLength - magnitude.count))
            raw.append(contentsOf: magnitude)
            index = end
        }
        return index == der.count ? raw : nil
    }

    /// The DER form of a 64-byte `r‖s`, with minimal INTEGERs (a zero byte before a set high bit).
    static func der(fromRaw raw: [UInt8]) -> [UInt8] {
        let r = integer(raw[0..<componentLength])
        let s = integer(raw[componentLength...])
        return [0x30, UInt8(r.count + s.count)] + r + s
    }

    /// One DER INTEGER holding the unsigned big-endian `bytes`.
    private static func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var magnitude = Array(bytes.drop { $0 == 0 })
        if magnitude.isEmpty || magnitude[0] & 0x80 != 0 { magnitude.insert(0, at: 0) }
        return [0x02, UInt8(magnitude.count)] + magnitude
    }
}
