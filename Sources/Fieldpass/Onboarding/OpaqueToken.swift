import Tokens

/// The random handles Fieldpass hands out: session ids, states, nonces, PKCE verifiers.
enum OpaqueToken {
    /// 32 random bytes, base64url: 43 characters, 256 bits.
    static func make() throws(TokenError) -> String {
        try Crypto.randomToken(byteCount: 32)
    }

    /// The form a token is stored in, so that a copy of the store cannot replay it.
    static func digest(_ token: String) -> String {
        Crypto.base64URLEncode(Crypto.sha256(Array(token.utf8)))
    }

    /// Whether `text` could be one of ours: checked before any lookup, so junk never reaches the store.
    static func isWellFormed(_ text: String) -> Bool {
        text.utf8.count == 43
            && text.utf8.allSatisfy { byte in
                (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                    || byte == 0x2D || byte == 0x5F
            }
    }
}
