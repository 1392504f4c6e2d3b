internal import CJWT
internal import COpenSSL
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#else
internal import Darwin
#endif

/// The only place that touches libjwt; its pointers stay inside these functions.
enum LibJWT {
    /// Signs `claimsJSON` (a JSON object) with a PEM private key; header gets alg, typ and kid.
    static func sign(
        claimsJSON: String, kid: String, algorithm: SigningAlgorithm, privatePEM: [UInt8], type: String = "JWT"
    ) throws(TokenError) -> String {
        // libjwt leaves OpenSSL errors behind; clear them so they don't confuse later calls.
        defer { ERR_clear_error() }
        var created: OpaquePointer?
        guard jwt_new(&created) == 0, let jwt = created else { throw .crypto("jwt_new failed") }
        defer { jwt_free(jwt) }
        var status = jwt_add_grants_json(jwt, claimsJSON)
        guard status == 0 else { throw .malformed("libjwt rejected the claims JSON (error \(status))") }
        status = jwt_add_header(jwt, "kid", kid)
        guard status == 0 else { throw .crypto("jwt_add_header(kid) failed (error \(status))") }
        // libjwt writes `typ: JWT` only where the header has no `typ` yet.
        if type != "JWT" {
            status = jwt_add_header(jwt, "typ", type)
            guard status == 0 else { throw .crypto("jwt_add_header(typ) failed (error \(status))") }
        }
        status = privatePEM.withUnsafeBufferPointer { pem in
            jwt_set_alg(jwt, algorithm.libjwtAlgorithm, pem.baseAddress, Int32(pem.count))
        }
        guard status == 0 else { throw .crypto("jwt_set_alg failed (error \(status))") }
        guard let encoded = jwt_encode_str(jwt) else { throw .crypto("jwt_encode_str failed (errno \(errno))") }
        defer { free(encoded) }
        return String(cString: encoded)
    }

    /// Verifies `token`'s signature with a PEM public key. libjwt takes the algorithm from
    /// the header, so the caller must have pinned it already; we check libjwt agreed.
    static func verify(token: String, algorithm: SigningAlgorithm, publicPEM: [UInt8]) throws(TokenError) {
        defer { ERR_clear_error() }
        var decoded: OpaquePointer?
        let status = publicPEM.withUnsafeBufferPointer { pem in
            jwt_decode(&decoded, token, pem.baseAddress, Int32(pem.count))
        }
        defer { if let decoded { jwt_free(decoded) } }
        guard status == 0, let decoded else { throw .invalidSignature }
        // A header that parses differently for libjwt (e.g. duplicate "alg") must not
        // let it verify with another algorithm, such as HMAC keyed by our public PEM.
        let used = jwt_get_alg(decoded)
        guard used == algorithm.libjwtAlgorithm else {
            throw .algorithmNotAllowed(jwt_alg_str(used).map { String(cString: $0) } ?? "unknown")
        }
    }
}
