internal import Foundation
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#else
internal import Darwin
#endif

/// File-system work behind `KeyRing`: listing, creating and writing key files.
struct KeyFolder {
    /// The folder holding the `*.pem` files.
    let directory: URL

    /// Wraps `directory`.
    init(_ directory: URL) {
        self.directory = directory
    }

    /// Visible `*.pem` files with their modification times and modes, newest first, ties broken by
    /// the later name. Symlinks are followed (e.g. Kubernetes secret mounts); a missing
    /// folder → `noKeys`.
    func pemFilesNewestFirst() throws(TokenError) -> [(file: URL, modified: Date, mode: Int)] {
        let entries: [URL]
        do {
            entries = try FileManager.default.contentsOfDirectory(
                at: directory, includingPropertiesForKeys: nil, options: [.skipsHiddenFiles]
            )
        } catch {
            guard FileManager.default.fileExists(atPath: directory.path) else { throw .noKeys(directory.path) }
            throw .io("\(directory.path): \(error.localizedDescription)")
        }
        var dated: [(file: URL, modified: Date, mode: Int)] = []
        for file in entries where file.pathExtension == "pem" {
            do {
                let attributes = try FileManager.default.attributesOfItem(atPath: file.resolvingSymlinksInPath().path)
                dated.append(
                    (
                        file, attributes[.modificationDate] as? Date ?? .distantPast, attributes[.posixPermissions] as? Int ?? 0
                    ))
            } catch {
                throw .io("\(file.lastPathComponent): \(error.localizedDescription)")
            }
        }
        return dated.sorted { lhs, rhs in
            lhs.modified != rhs.modified
                ? lhs.modified > rhs.modified
                : lhs.file.lastPathComponent > rhs.file.lastPathComponent
        }
    }

    /// Creates the folder (and parents) with mode 0700 unless it exists.
    func create() throws(TokenError) {
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]
            )
        } catch {
            throw .io("cannot create \(directory.path): \(error.localizedDescription)")
        }
    }

    /// Writes a new file readable only by its owner. It is opened with mode 0600 and
    /// O_EXCL, so the key is never briefly world-readable and never overwrites a file.
    func writePrivateFile(_ file: URL, contents: [UInt8]) throws(TokenError) {
        let path = file.path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .io("cannot create \(path): \(String(cString: strerror(errno)))") }
        var written = 0
        while written < contents.count {
            let result = contents[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if result < 0, errno == EINTR { continue }
            guard result > 0 else {
                let reason = String(cString: strerror(errno))
                close(descriptor)
                unlink(path)
                throw .io("cannot write \(path): \(reason)")
            }
            written += result
        }
        guard fsync(descriptor) == 0, close(descriptor) == 0 else {
            unlink(path)
            throw .io("cannot flush \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// `yyyyMMdd'T'HHmmss` in UTC, the sortable prefix of generated key files.
    static func timestamp(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let fields = [parts.year, parts.month, parts.day, parts.hour, parts.minute, parts.second].map { $0 ?? 0 }
        return String(format: "%04ld%02ld%02ldT%02ld%02ld%02ld", fields[0], fields[1], fields[2], fields[3], fields[4], fields[5])
    }
}
