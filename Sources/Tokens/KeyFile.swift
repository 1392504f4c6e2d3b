public import Foundation

/// A private key read from `tokens.keys_dir`, dated by its file's modification time.
///
/// The file's time is the moment the key was published: every instance reading the same
/// folder therefore agrees on when a new key starts to sign.
public struct KeyFile: Sendable {
    /// The key.
    public let key: SigningKey
    /// The file's name within the folder.
    public let name: String
    /// When the file was written, i.e. when the key was first published.
    public let addedAt: Date
    /// Whether its mode lets group or others read it.
    public let readableByOthers: Bool

    /// Wraps a key read from `name`.
    public init(key: SigningKey, name: String, addedAt: Date, readableByOthers: Bool = false) {
        self.key = key
        self.name = name
        self.addedAt = addedAt
        self.readableByOthers = readableByOthers
    }

    /// Every `*.pem` in `directory`, newest first. Throws `TokenError.noKeys(path)` when there
    /// is none (or the folder does not exist), `TokenError.invalidKey("<file>: reason")` for a
    /// bad file and `TokenError.io` when the folder or a file cannot be read.
    public static func readAll(in directory: URL) throws(TokenError) -> [KeyFile] {
        var files: [KeyFile] = []
        for (file, modified, mode) in try KeyFolder(directory).pemFilesNewestFirst() {
            let name = file.lastPathComponent
            let pem: String
            do {
                pem = try String(contentsOf: file, encoding: .utf8)
            } catch {
                throw .io("\(name): \(error.localizedDescription)")
            }
            do {
                files.append(KeyFile(key: try SigningKey(pem: pem), name: name, addedAt: modified, readableByOthers: mode & 0o044 != 0))
            } catch .invalidKey(let reason) {
                throw .invalidKey("\(name): \(reason)")
            } catch {
                throw .invalidKey("\(name): \(error)")
            }
        }
        guard !files.isEmpty else { throw .noKeys(directory.path) }
        return files
    }
}
