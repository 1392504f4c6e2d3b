internal import COpenSSL

/// Helpers around OpenSSL's thread-local error queue.
enum OpenSSL {
    /// Empties the error queue and describes what was in it, so stale errors
    /// never leak into a later, unrelated failure message.
    static func drainErrors() -> String {
        var messages: [String] = []
        var buffer = [CChar](repeating: 0, count: 256)
        while case let code = ERR_get_error(), code != 0 {
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return messages.isEmpty ? "unknown OpenSSL error" : messages.joined(separator: "; ")
    }
}
