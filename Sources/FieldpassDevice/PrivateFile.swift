import Foundation

/// A file of the device's secrets (tokens, the installation id, a DPoP key) that only its owner
/// may read: read only when nobody else may have planted or read it, written whole under a
/// name nobody can guess and put in place at once, mode 0600 whatever the umask.
enum PrivateFile {
    /// The file's bytes, or `nil` when there is none; a file that cannot be trusted is refused
    /// with ``FieldpassClientError/unsafeTokenFile(path:problem:)``.
    static func read(_ path: String) throws -> Data? {
        // O_NOFOLLOW refuses a link instead of following it; O_NONBLOCK keeps a planted FIFO
        // from holding the open until someone writes to it.
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            switch errno {
            case ENOENT: return nil
            case ELOOP: throw FieldpassClientError.unsafeTokenFile(path: path, problem: .symbolicLink)
            default: throw failure()
            }
        }
        // Only read from: closing it cannot lose anything.
        defer { _ = close(descriptor) }
        // The open file itself is checked, so nothing can be swapped in between the check and the read.
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw failure() }
        if let problem = problem(status) { throw FieldpassClientError.unsafeTokenFile(path: path, problem: problem) }
        return try FileHandle(fileDescriptor: descriptor, closeOnDealloc: false).readToEnd() ?? Data()
    }

    /// Puts `data` in place of the file at `path`, atomically.
    static func replace(_ path: String, with data: Data) throws {
        try withNewFile(beside: path, holding: data) { temporary in
            guard rename(temporary, path) == 0 else { throw failure() }
        }
    }

    /// Puts `data` at `path` only if no file is there, atomically: `false` when one is, which
    /// is left as it was. Two processes creating the same file at once: one wins, and the other
    /// learns that it lost.
    static func create(_ path: String, with data: Data) throws -> Bool {
        var created = true
        try withNewFile(beside: path, holding: data) { temporary in
            // A hard link fails when the name exists, where a rename would replace it.
            guard link(temporary, path) == 0 else {
                guard errno == EEXIST else { throw failure() }
                created = false
                return
            }
        }
        return created
    }

    /// Writes `data` to a new file in `path`'s folder, gives its path to `place`, then removes
    /// that name (what `place` renamed or linked stays).
    private static func withNewFile(beside path: String, holding data: Data, place: (String) throws -> Void) throws {
        let target = URL(fileURLWithPath: path)
        // In the target's folder, so that the rename stays on one file system and is atomic; a
        // random name created exclusively, so that no file or link planted there is written to.
        let name = ".\(target.lastPathComponent).\(String(UInt64.random(in: .min ... .max), radix: 16)).tmp"
        let temporary = target.deletingLastPathComponent().appendingPathComponent(name).path
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure() }
        // No copy of the secret is left behind beside a file that could not be put in place; the
        // failure reported is the one that stopped the write. After a rename the name is gone.
        defer { _ = unlink(temporary) }
        try fill(descriptor, with: data)
        try place(temporary)
    }

    /// Removes the file; a link is removed itself, never the file it points to.
    static func remove(_ path: String) throws {
        guard unlink(path) == 0 || errno == ENOENT else { throw failure() }
    }

    /// Writes `data` to the new file and closes it, each step checked. Mode 0600 whatever the
    /// umask took away, and on disk before it is put in place, so a crash leaves the old file or
    /// the new.
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
