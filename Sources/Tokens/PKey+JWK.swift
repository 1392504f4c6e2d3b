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
        return try publicKey(.es256) { builder throws(TokenError) in
            try builder.push(OSSL_PKEY_PARAM_GROUP_NAME, string: "prime256v1")
            try builder.push(OSSL_PKEY_PARAM_PUB_KEY, octets: [0x04] + x + y)  // SEC1 uncompressed point
        }
    }

    /// An RSA public key from its big-endian modulus and exponent.
    static func rsaPublicKey(modulus n: [UInt8], exponent e: [UInt8]) throws(TokenError) -> PKey {
        guard !n.isEmpty, !e.isEmpty else { throw .invalidKey("RSA modulus or exponent is empty") }
        return try publicKey(.rs256) { builder throws(TokenError) in
            try builder.push(OSSL_PKEY_PARAM_RSA_N, bigEndian: n)
            try builder.push(OSSL_PKEY_PARAM_RSA_E, bigEndian: e)
        }
    }

    /// OpenSSL's `EVP_PKEY_PUBLIC_KEY`, a macro Swift cannot import.
    private static var publicKeySelection: Int32 {
        Int32(OSSL_KEYMGMT_SELECT_PUBLIC_KEY | OSSL_KEYMGMT_SELECT_DOMAIN_PARAMETERS | OSSL_KEYMGMT_SELECT_OTHER_PARAMETERS)
    }

    /// Builds a public key for `algorithm` from the parameters `push` adds, then runs OpenSSL's
    /// public key check (point on curve, sane RSA modulus and exponent).
    private static func publicKey(
        _ algorithm: SigningAlgorithm,
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
