internal import COpenSSL

/// Conversion between OpenSSL keys and the public JWK members.
extension PKey {
    /// The public JWK members (kty and key material only) of this key.
    func publicJWK() throws(TokenError) -> JWK {
        let algorithm = try algorithm()
        switch algorithm {
        case .es256:
            // Coordinates are fixed-width (32 bytes for P-256) per RFC 7518 section 6.2.1.2.
            let x = try bignumParameter(OSSL_PKEY_PARAM_EC_PUB_X, width: 32)
            let y = try bignumParameter(OSSL_PKEY_PARAM_EC_PUB_Y, width: 32)
            return JWK(kty: algorithm.keyType, crv: "P-256", x: Crypto.base64URLEncode(x), y: Crypto.base64URLEncode(y))
        case .rs256:
            let n = try bignumParameter(OSSL_PKEY_PARAM_RSA_N, width: nil)
            let e = try bignumParameter(OSSL_PKEY_PARAM_RSA_E, width: nil)
            return JWK(kty: algorithm.keyType, n: Crypto.base64URLEncode(n), e: Crypto.base64URLEncode(e))
        }
    }

    /// A P-256 public key from its affine coordinates; the point must lie on the curve.
    static func p256PublicKey(x: [UInt8], y: [UInt8]) throws(TokenError) -> PKey {
        guard x.count == 32, y.count == 32 else { throw .invalidKey("EC coordinates must be 32 bytes each") }
        return try publicKey(.es256, check: true) { builder throws(TokenError) in
            try builder.push(OSSL_PKEY_PARAM_GROUP_NAME, string: "prime256v1")
            try builder.push(OSSL_PKEY_PARAM_PUB_KEY, octets: [0x04] + x + y)  // SEC1 uncompressed point
        }
    }

    /// The RSA moduli accepted from outside (an IdP's JWKS, a DPoP proof): a stranger's key
    /// costs in proportion to its size, so it is bounded by its bytes before OpenSSL sees it.
    static let rsaModulusBits = 2048...4096
    /// The one RSA public exponent accepted from outside: what every key generator uses.
    static let rsaExponent: [UInt8] = [0x01, 0x00, 0x01]

    /// An RSA public key from its big-endian modulus and exponent: 2,048 to 4,096 bits, odd,
    /// with e = 65537, checked on the bytes alone. OpenSSL's own public-key check is not run:
    /// it tests the modulus for primality, which costs a second for a 16,384-bit one and
    /// proves nothing a signature check needs (a bogus modulus only fails to verify).
    static func rsaPublicKey(modulus n: [UInt8], exponent e: [UInt8]) throws(TokenError) -> PKey {
        let modulus = n.drop { $0 == 0 }
        guard let leading = modulus.first, let trailing = modulus.last else { throw .invalidKey("RSA modulus is empty") }
        let bits = modulus.count * 8 - leading.leadingZeroBitCount
        guard rsaModulusBits.contains(bits) else {
            throw .invalidKey("RSA key of \(bits) bits; \(rsaModulusBits.lowerBound) to \(rsaModulusBits.upperBound) bits are accepted")
        }
        guard trailing & 1 == 1 else { throw .invalidKey("RSA modulus is even") }
        guard e.drop(while: { $0 == 0 }).elementsEqual(rsaExponent) else { throw .invalidKey("RSA exponent is not 65537") }
        return try publicKey(.rs256, check: false) { builder throws(TokenError) in
            try builder.push(OSSL_PKEY_PARAM_RSA_N, bigEndian: Array(modulus))
            try builder.push(OSSL_PKEY_PARAM_RSA_E, bigEndian: rsaExponent)
        }
    }

    /// OpenSSL's `EVP_PKEY_PUBLIC_KEY`, a macro Swift cannot import.
    private static var publicKeySelection: Int32 {
        Int32(OSSL_KEYMGMT_SELECT_PUBLIC_KEY | OSSL_KEYMGMT_SELECT_DOMAIN_PARAMETERS | OSSL_KEYMGMT_SELECT_OTHER_PARAMETERS)
    }

    /// Builds a public key for `algorithm` from the parameters `push` adds, then, when `check`,
    /// runs OpenSSL's public key check (for P-256: the point lies on the curve).
    private static func publicKey(
        _ algorithm: SigningAlgorithm, check: Bool,
        push: (inout ParameterBuilder) throws(TokenError) -> Void
    ) throws(TokenError) -> PKey {
        var builder = try ParameterBuilder()
        try push(&builder)
        let parameters = try builder.parameters()
        defer { OSSL_PARAM_free(parameters) }
        let context = try context(for: algorithm)
        defer { EVP_PKEY_CTX_free(context) }
        var created: OpaquePointer?
        guard EVP_PKEY_fromdata_init(context) == 1,
            EVP_PKEY_fromdata(context, &created, publicKeySelection, parameters) == 1,
            let created
        else {
            throw .invalidKey("\(algorithm.keyType) public key rejected: \(OpenSSL.drainErrors())")
        }
        let key = PKey(taking: created)
        guard check else { return key }
        guard let checker = EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil) else {
            throw .crypto("EVP_PKEY_CTX_new_from_pkey: \(OpenSSL.drainErrors())")
        }
        defer { EVP_PKEY_CTX_free(checker) }
        guard EVP_PKEY_public_check(checker) == 1 else {
            throw .invalidKey("\(algorithm.keyType) public key failed validation: \(OpenSSL.drainErrors())")
        }
        return key
    }

    /// A big-number key parameter as big-endian bytes, left-padded to `width` when given.
    private func bignumParameter(_ name: String, width: Int?) throws(TokenError) -> [UInt8] {
        var value: OpaquePointer?
        guard EVP_PKEY_get_bn_param(pointer, name, &value) == 1, let value else {
            throw .crypto("EVP_PKEY_get_bn_param(\(name)): \(OpenSSL.drainErrors())")
        }
        defer { BN_free(value) }
        let count = width ?? (Int(BN_num_bits(value)) + 7) / 8
        var bytes = [UInt8](repeating: 0, count: count)
        guard BN_bn2binpad(value, &bytes, Int32(count)) == count else {
            throw .crypto("BN_bn2binpad(\(name)): value wider than \(count) bytes")
        }
        return bytes
    }
}
