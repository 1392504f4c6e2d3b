import Foundation

/// Keeps the tokens in one JSON file that only its owner may read (mode 0600), replaced
/// atomically on each save so a crash leaves the old tokens or the new ones, never half.
///
/// Put the file in the app's own folder (Application Support on Apple platforms; on Linux
/// `$XDG_DATA_HOME`, else `~/.local/share`), never in a shared one such as `/tmp`. Even there
/// the store uses no file it did not make: ``load()`` refuses a symbolic link, another user's
/// file and one that others may read or write, and ``save(_:)`` writes a new file under a name
/// nobody can guess before it puts it in place.
public struct FileTokenStore: TokenStore {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// The saved tokens, or `nil` when there is no file. Throws
    /// ``FieldpassClientError/unsafeTokenFile(path:problem:)`` for a file someone else may
    /// have planted or read: a sign-out would hide that, and a planted file's tokens are not ours.
    public func load() async throws -> TokenSet? {
        try Self.readTrusted(path).map { try JSONDecoder.fieldpass.decode(TokenSet.self, from: $0) }
    }

    public func save(_ tokens: TokenSet) async throws {
        try Self.replace(path, with: try JSONEncoder.fieldpass.encode(tokens))
    }

    /// Kept in `<path>.installation`, with the same care, so that a sign-out (which removes the
    /// token file) leaves it.
    public func loadInstallationID() async throws -> String? {
        try Self.readTrusted(installationPath).map { String(decoding: $0, as: UTF8.self) }
    }

    public func saveInstallationID(_ id: String) async throws {
        try Self.replace(installationPath, with: Data(id.utf8))
    }

    private var installationPath: String { path + ".installation" }

    /// The file's bytes, or `nil` when there is none; a file this store cannot trust is refused.
    private static func readTrusted(_ path: String) throws -> Data? {
        // O_NOFOLLOW refuses a link instead of following it; O_NONBLOCK keeps a planted FIFO
        // from holding the open until someone writes to it.
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            switch errno {
            case ENOENT: return nil
            case ELOOP: throw FieldpassClientError.unsafeTokenFile(path: path, problem: .symbolicLink)
            default: throw Self.failure()
            }
        }
        // Only read from: closing it cannot lose anything.
        defer { _ = close(descriptor) }
        // The open file itself is checked, so nothing can be swapped in between the check and the read.
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw Self.failure() }
        if let problem = Self.problem(status) { throw FieldpassClientError.unsafeTokenFile(path: path, problem: problem) }
        return try FileHandle(fileDescriptor: descriptor, closeOnDealloc: false).readToEnd() ?? Data()
    }

    /// Puts `data` in place of the file at `path`, atomically.
    private static func replace(_ path: String, with data: Data) throws {
        let target = URL(fileURLWithPath: path)
        // In the target's folder, so that the rename stays on one file system and is atomic; a
        // random name created exclusively, so that no file or link planted there is written to.
        let name = ".\(target.lastPathComponent).\(String(UInt64.random(in: .min ... .max), radix: 16)).tmp"
        let temporary = target.deletingLastPathComponent().appendingPathComponent(name).path
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Self.failure() }
        do {
            try Self.fill(descriptor, with: data)
            guard rename(temporary, path) == 0 else { throw Self.failure() }
        } catch {
            // No copy of the tokens is left behind beside a file that could not be replaced; the
            // failure reported is the one that stopped the save.
            _ = unlink(temporary)
            throw error
        }
    }

    public func clear() async throws {
        // A link is removed itself, never the file it points to.
        guard unlink(path) == 0 || errno == ENOENT else { throw Self.failure() }
    }

    /// Writes `data` to the new file and closes it, each step checked. Mode 0600 whatever the
    /// umask took away, and on disk before the rename, so a crash leaves the old file or the new.
    private static func fill(_ descriptor: Int32, with data: Data) throws {
        var open = true
        defer { if open { _ = close(descriptor) } }
        guard fchmod(descriptor, 0o600) == 0 else { throw failure() }
        try FileHandle(fileDescriptor: descriptor, closeOnDealloc: false).write(contentsOf: data)
        guard fsync(descriptor) == 0 else { throw failure() }
        open = false
        guard close(descriptor) == 0 else { throw failure() }
    }

    /// Why a file with this status must not be trusted, if it must not.
    private static func problem(_ status: stat) -> TokenFileProblem? {
        if status.st_mode & S_IFMT != S_IFREG { return .notARegularFile }
        if status.st_uid != geteuid() { return .ownedByAnotherUser }
        if status.st_mode & 0o077 != 0 { return .openToOthers }
        return nil
    }

    /// The failed call's `errno` as an error.
    private static func failure() -> POSIXError {
        POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
}
