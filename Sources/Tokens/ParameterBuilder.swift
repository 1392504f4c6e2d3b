internal import COpenSSL

/// An `OSSL_PARAM_BLD` that owns what is pushed into it. OpenSSL's builder keeps the
/// key, value and BIGNUM pointers until `parameters()` runs, while Swift's string and
/// array pointers die with each call, so stable copies live here until the builder goes.
struct ParameterBuilder: ~Copyable {
    /// The owned `OSSL_PARAM_BLD *`.
    private let builder: OpaquePointer
    /// Copies of keys and values handed to the builder.
    private var buffers: [UnsafeMutableRawPointer] = []
    /// BIGNUMs handed to the builder.
    private var bignums: [OpaquePointer] = []

    /// Creates an empty builder.
    init() throws(TokenError) {
        guard let builder = OSSL_PARAM_BLD_new() else { throw .crypto("OSSL_PARAM_BLD_new: \(OpenSSL.drainErrors())") }
        self.builder = builder
    }

    deinit {
        OSSL_PARAM_BLD_free(builder)
        bignums.forEach { BN_free($0) }
        buffers.forEach { $0.deallocate() }
    }

    /// Adds a UTF-8 string parameter.
    mutating func push(_ key: String, string value: String) throws(TokenError) {
        let copy = keep(Array(value.utf8) + [0])
        try check(OSSL_PARAM_BLD_push_utf8_string(builder, keep(key), copy.assumingMemoryBound(to: CChar.self), 0), key)
    }

    /// Adds an octet string parameter.
    mutating func push(_ key: String, octets value: [UInt8]) throws(TokenError) {
        try check(OSSL_PARAM_BLD_push_octet_string(builder, keep(key), keep(value), value.count), key)
    }

    /// Adds an unsigned big-number parameter given in big-endian bytes.
    mutating func push(_ key: String, bigEndian value: [UInt8]) throws(TokenError) {
        // BN_bin2bn copies its input at once, so the temporary array pointer is fine here.
        guard let bignum = BN_bin2bn(value, Int32(value.count), nil) else {
            throw .crypto("BN_bin2bn: \(OpenSSL.drainErrors())")
        }
        bignums.append(bignum)
        try check(OSSL_PARAM_BLD_push_BN(builder, keep(key), bignum), key)
    }

    /// The finished parameter array; the caller frees it with `OSSL_PARAM_free`.
    func parameters() throws(TokenError) -> UnsafeMutablePointer<OSSL_PARAM> {
        guard let parameters = OSSL_PARAM_BLD_to_param(builder) else {
            throw .crypto("OSSL_PARAM_BLD_to_param: \(OpenSSL.drainErrors())")
        }
        return parameters
    }

    /// A NUL-terminated copy of `key` that lives as long as the builder.
    private mutating func keep(_ key: String) -> UnsafePointer<CChar> {
        UnsafePointer(keep(Array(key.utf8) + [0]).assumingMemoryBound(to: CChar.self))
    }

    /// A copy of `bytes` that lives as long as the builder.
    private mutating func keep(_ bytes: [UInt8]) -> UnsafeMutableRawPointer {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
        bytes.withUnsafeBytes { source in
            if let base = source.baseAddress { buffer.copyMemory(from: base, byteCount: source.count) }
        }
        buffers.append(buffer)
        return buffer
    }

    /// Throws unless an `OSSL_PARAM_BLD_push_*` call returned 1.
    private func check(_ status: Int32, _ key: String) throws(TokenError) {
        guard status == 1 else { throw .crypto("OSSL_PARAM_BLD push \(key): \(OpenSSL.drainErrors())") }
    }
}
