internal import Foundation
internal import COpenSSL

/// Owns one OpenSSL `EVP_PKEY` and frees it when dropped; never leaves the module.
struct PKey: ~Copyable {
    /// The owned `EVP_PKEY *`.
    let pointer: OpaquePointer

    /// Takes ownership of `pointer`.
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    /// Generates an EC P-256 key for ES256 or an RSA-2048 key for RS256.
    static func generate(_ algorithm: SigningAlgorithm) throws(TokenError) -> PKey {
        let context = try context(for: algorithm)
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_keygen_init(context) == 1 else {
            throw .crypto("EVP_PKEY_keygen_init: \(OpenSSL.drainErrors())")
        }
        let configured =
            switch algorithm {
            case .es256: EVP_PKEY_CTX_set_group_name(context, "P-256")
            case .rs256: EVP_PKEY_CTX_set_rsa_keygen_bits(context, 2048)
            }
        guard configured == 1 else { throw .crypto("key generation setup: \(OpenSSL.drainErrors())") }
        var key: OpaquePointer?
        guard EVP_PKEY_generate(context, &key) == 1, let key else {
            throw .crypto("EVP_PKEY_generate: \(OpenSSL.drainErrors())")
        }
        return PKey(taking: key)
    }

    /// A new `EVP_PKEY_CTX` for the key type of `algorithm`; the caller frees it.
    static func context(for algorithm: SigningAlgorithm) throws(TokenError) -> OpaquePointer {
        // By NID rather than by name: OpenSSL keeps the name pointer, which a Swift string would not outlive.
        let id =
            switch algorithm {
            case .es256: EVP_PKEY_EC
            case .rs256: EVP_PKEY_RSA
            }
        guard let context = EVP_PKEY_CTX_new_id(id, nil) else {
            throw .crypto("EVP_PKEY_CTX_new_id(\(algorithm.keyType)): \(OpenSSL.drainErrors())")
        }
        return context
    }

    /// Parses an unencrypted PEM private key (PKCS#8, SEC1 or PKCS#1).
    init(privatePEM pem: String) throws(TokenError) {
        try PKey.checkPrivateKeyLabels(pem)
        let bytes = Array(pem.utf8)
        let key: OpaquePointer? = bytes.withUnsafeBytes { buffer in
            // The memory BIO borrows `buffer`, so it must not outlive this closure.
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            // A refusing password callback stops OpenSSL from prompting on the terminal.
            return PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in -1 }, nil)
        }
        guard let key else { throw .invalidKey("cannot parse PEM private key: \(OpenSSL.drainErrors())") }
        self.init(taking: key)
    }

    /// The algorithm this key serves; rejects other types, curves and weak or oversized RSA keys.
    func algorithm() throws(TokenError) -> SigningAlgorithm {
        if EVP_PKEY_is_a(pointer, "EC") == 1 {
            var name = [CChar](repeating: 0, count: 64)
            var length = 0
            guard EVP_PKEY_get_group_name(pointer, &name, name.count, &length) == 1 else {
                throw .invalidKey("EC key without a named curve: \(OpenSSL.drainErrors())")
            }
            let curve = String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard curve == "prime256v1" else { throw .invalidKey("EC curve \(curve) is not P-256") }
            return .es256
        }
        if EVP_PKEY_is_a(pointer, "RSA") == 1 {
            let bits = EVP_PKEY_get_bits(pointer)
            // 16384 is OpenSSL's own verification limit; larger moduli would only cost CPU.
            guard (2048...16384).contains(bits) else {
                throw .invalidKey("RSA key of \(bits) bits; 2048 to 16384 bits are supported")
            }
            return .rs256
        }
        throw .invalidKey("key type is neither EC P-256 nor RSA")
    }

    /// SubjectPublicKeyInfo PEM ("PUBLIC KEY"), the form libjwt verifies with.
    func publicPEM() throws(TokenError) -> [UInt8] {
        try PKey.writePEM { bio in PEM_write_bio_PUBKEY(bio, pointer) }
    }

    /// Unencrypted PKCS#8 PEM ("PRIVATE KEY").
    func privatePKCS8PEM() throws(TokenError) -> [UInt8] {
        try PKey.writePEM { bio in PEM_write_bio_PrivateKey(bio, pointer, nil, nil, 0, nil, nil) }
    }

    /// Runs `write` against a fresh memory BIO and returns what it wrote.
    private static func writePEM(_ write: (OpaquePointer) -> Int32) throws(TokenError) -> [UInt8] {
        guard let bio = BIO_new(BIO_s_mem()) else { throw .crypto("BIO_new: \(OpenSSL.drainErrors())") }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else { throw .crypto("PEM write: \(OpenSSL.drainErrors())") }
        let pending = Int(BIO_ctrl_pending(bio))
        var bytes = [UInt8](repeating: 0, count: pending)
        let read = bytes.withUnsafeMutableBytes { BIO_read(bio, $0.baseAddress, Int32(pending)) }
        guard read == pending else { throw .crypto("BIO_read: \(OpenSSL.drainErrors())") }
        return bytes
    }

    /// Rejects PEM text without an unencrypted private key block up front, with a clearer
    /// message than OpenSSL's decoder would give.
    private static func checkPrivateKeyLabels(_ pem: String) throws(TokenError) {
        let labels = pem.split(whereSeparator: \.isNewline).compactMap { line -> String? in
            let text = line.trimmingCharacters(in: .whitespaces)
            guard text.hasPrefix("-----BEGIN "), text.hasSuffix("-----") else { return nil }
            return String(text.dropFirst("-----BEGIN ".count).dropLast("-----".count))
        }
        if labels.contains("ENCRYPTED PRIVATE KEY") || pem.contains("Proc-Type: 4,ENCRYPTED") {
            throw .invalidKey("encrypted private keys are not supported")
        }
        let accepted: Set<String> = ["PRIVATE KEY", "EC PRIVATE KEY", "RSA PRIVATE KEY"]
        guard labels.contains(where: accepted.contains) else {
            let found = labels.isEmpty ? "no PEM block" : labels.joined(separator: ", ")
            throw .invalidKey("not a PEM private key (found: \(found))")
        }
    }
}
