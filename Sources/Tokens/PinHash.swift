internal import COpenSSL

/// A PIN's stored form: scrypt (RFC 7914, OpenSSL's `EVP_PBE_scrypt`) over a random 16-byte
/// salt, as `scrypt$N$r$p$<salt>$<hash>` (base64url). A PIN has few digits, so only a slow,
/// memory-hard hash keeps a stolen database from giving every PIN away in seconds; the
/// parameters travel with the hash, so stronger ones can come later without losing old PINs.
public enum PinHash {
    /// 2^14 blocks of 8 × 128 bytes: 16 MiB and about 50 ms a hash.
    static let cost: UInt64 = 1 << 14
    static let blockSize: UInt64 = 8
    static let parallelism: UInt64 = 1
    static let length = 32
    /// Room for the parameters above; OpenSSL refuses to go past it.
    static let maxMemory: UInt64 = 64 << 20

    /// The stored form of `pin`, with a salt of its own.
    public static func make(_ pin: String) throws(TokenError) -> String {
        let salt = try Crypto.randomBytes(16)
        let hash = try scrypt(pin, salt: salt, cost: cost, blockSize: blockSize, parallelism: parallelism)
        return ["scrypt", "\(cost)", "\(blockSize)", "\(parallelism)", Crypto.base64URLEncode(salt), Crypto.base64URLEncode(hash)]
            .joined(separator: "$")
    }

    /// Whether `pin` is the one `stored` was made of, compared in constant time. A stored form
    /// this version cannot read matches nothing.
    public static func verify(_ pin: String, against stored: String) -> Bool {
        let parts = stored.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0] == "scrypt", let cost = UInt64(parts[1]), let blockSize = UInt64(parts[2]),
            let parallelism = UInt64(parts[3]), cost <= Self.cost, blockSize <= Self.blockSize, parallelism <= Self.parallelism,
            let salt = Crypto.base64URLDecode(parts[4]), let expected = Crypto.base64URLDecode(parts[5]), expected.count == length,
            let hash = try? scrypt(pin, salt: salt, cost: cost, blockSize: blockSize, parallelism: parallelism)
        else { return false }
        return Crypto.constantTimeEquals(hash, expected)
    }

    private static func scrypt(
        _ pin: String, salt: [UInt8], cost: UInt64, blockSize: UInt64, parallelism: UInt64
    ) throws(TokenError) -> [UInt8] {
        let password = Array(pin.utf8)
        var key = [UInt8](repeating: 0, count: length)
        let status = password.withUnsafeBytes { password in
            salt.withUnsafeBufferPointer { salt in
                key.withUnsafeMutableBufferPointer { key in
                    EVP_PBE_scrypt(
                        password.baseAddress?.assumingMemoryBound(to: CChar.self), password.count, salt.baseAddress, salt.count, cost,
                        blockSize, parallelism, maxMemory, key.baseAddress, key.count)
                }
            }
        }
        guard status == 1 else { throw .crypto("EVP_PBE_scrypt: \(OpenSSL.drainErrors())") }
        return key
    }
}
