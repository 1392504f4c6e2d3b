import Foundation

/// A command-line program a test runs, found on `PATH`; a missing one fails the test and
/// names the Debian package that provides it.
struct Tool {
    let name: String
    let debianPackage: String

    /// A program that could not run, or that ran and failed.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs the program with `arguments` and returns its standard output.
    @discardableResult
    func run(_ arguments: [String]) throws -> String {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        guard let executable = directories.map({ "\($0)/\(name)" }).first(where: FileManager.default.isExecutableFile) else {
            throw Failure(description: "\(name) is not installed: apt-get install \(debianPackage)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        // Into a file rather than a second pipe, so that neither can fill up while the other is read.
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString).stderr")
        guard FileManager.default.createFile(atPath: errors.path, contents: nil) else {
            throw Failure(description: "cannot create \(errors.path)")
        }
        defer { try? FileManager.default.removeItem(at: errors) }
        process.standardError = try FileHandle(forWritingTo: errors)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let stdout = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let stderr = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            throw Failure(description: "\(name) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): \(stderr)")
        }
        return String(decoding: stdout, as: UTF8.self)
    }
}
