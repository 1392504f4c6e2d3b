internal import COpenSSL

/// AES-256-GCM with a random 96-bit nonce: `nonce ‖ ciphertext ‖ tag`.
///
/// Fieldpass uses it to keep a value readable only by whoever holds the secret the key was
/// derived from (a rotated refresh token keeps its successor this way during the grace).
public enum SealedBox {
    private static let nonceLength = 12
    private static let tagLength = 16

    /// Encrypts and authenticates `plaintext` under a 32-byte `key`.
    public static func seal(_ plaintext: [UInt8], key: [UInt8]) throws(TokenError) -> [UInt8] {
        guard key.count == 32 else { throw .crypto("AES-256-GCM needs a 32-byte key") }
        let nonce = try Crypto.randomBytes(nonceLength)
        guard let context = EVP_CIPHER_CTX_new() else { throw .crypto("EVP_CIPHER_CTX_new failed") }
        defer { EVP_CIPHER_CTX_free(context) }
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count)
        var tag = [UInt8](repeating: 0, count: tagLength)
        var written: Int32 = 0
        var finalLength: Int32 = 0
        // GCM writes nothing at the end: the whole text went through Update.
        var tail = [UInt8](repeating: 0, count: 16)
        let ok =
            EVP_EncryptInit_ex(context, EVP_aes_256_gcm(), nil, key, nonce) == 1
            && EVP_EncryptUpdate(context, &ciphertext, &written, plaintext, Int32(plaintext.count)) == 1
            && EVP_EncryptFinal_ex(context, &tail, &finalLength) == 1
            && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(tagLength), &tag) == 1
        guard ok else { throw .crypto("AES-256-GCM: \(OpenSSL.drainErrors())") }
        return nonce + ciphertext + tag
    }

    /// The plaintext, or `nil` when the key is wrong or the box was altered.
    public static func open(_ box: [UInt8], key: [UInt8]) -> [UInt8]? {
        guard key.count == 32, box.count >= nonceLength + tagLength,
            let context = EVP_CIPHER_CTX_new()
        else { return nil }
        defer { EVP_CIPHER_CTX_free(context) }
        let nonce = Array(box[..<nonceLength])
        let ciphertext = Array(box[nonceLength..<(box.count - tagLength)])
        var tag = Array(box[(box.count - tagLength)...])
        var plaintext = [UInt8](repeating: 0, count: ciphertext.count)
        var written: Int32 = 0
        var finalLength: Int32 = 0
        // GCM writes nothing at the end: the whole text went through Update.
        var tail = [UInt8](repeating: 0, count: 16)
        let ok =
            EVP_DecryptInit_ex(context, EVP_aes_256_gcm(), nil, key, nonce) == 1
            && EVP_DecryptUpdate(context, &plaintext, &written, ciphertext, Int32(ciphertext.count)) == 1
            && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(tagLength), &tag) == 1
            && EVP_DecryptFinal_ex(context, &tail, &finalLength) == 1
        _ = OpenSSL.drainErrors()
        return ok ? plaintext : nil
    }
}
