import CommandLineSupport
import Fieldpass
import Foundation

/// The page files of a badge sheet, `cards.svg` → `cards-1.svg`, `cards-2.svg`, …: each holds
/// badge values, so each is created readable by its owner only (0600), whatever was there.
struct BadgeSheetFiles {
    let base: String
    let paper: BadgePaper

    /// The page files of `count` cards.
    func paths(count: Int) -> [String] {
        let pages = (count + paper.cardsPerPage - 1) / paper.cardsPerPage
        let stem = String(base.dropLast(".svg".count))
        return (1...max(pages, 1)).map { "\(stem)-\($0).svg" }
    }

    /// Creates (or empties) the files of `count` cards, mode 0600, before anything is issued.
    func create(count: Int) throws {
        for path in paths(count: count) { try withFile(path) { _ in } }
    }

    /// Writes `pages`, in order, into the files ``create(count:)`` made; returns their paths.
    func write(_ pages: [String]) throws -> [String] {
        let paths = paths(count: pages.count * paper.cardsPerPage)
        for (path, page) in zip(paths, pages) {
            try withFile(path) { descriptor in
                try FileHandle(fileDescriptor: descriptor, closeOnDealloc: false).write(contentsOf: Data(page.utf8))
            }
        }
        return paths
    }

    /// Opens `path` emptied and owner-only (a file that was there keeps no wider mode; a link
    /// is refused, not followed), for `body`.
    private func withFile(_ path: String, _ body: (Int32) throws -> Void) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw CommandFailure("cannot write \(path): \(String(cString: strerror(errno)))") }
        defer { _ = close(descriptor) }
        guard fchmod(descriptor, 0o600) == 0 else { throw CommandFailure("cannot make \(path) private") }
        try body(descriptor)
    }
}
