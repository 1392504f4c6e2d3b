import Foundation

/// Runs `body` with a fresh folder under the temporary directory and removes it afterwards.
func withTemporaryFolder<T>(_ body: (URL) throws -> T) throws -> T {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    return try body(folder)
}

/// A failed `openssl` command line.
struct OpenSSLCommandFailed: Error, CustomStringConvertible {
    let arguments: [String]
    let status: Int32
    let stderr: String
    var description: String { "openssl \(arguments.joined(separator: " ")) exited \(status): \(stderr)" }
}

/// Runs `/usr/bin/openssl` with `arguments` and returns its standard output.
@discardableResult
func openssl(_ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
    process.arguments = arguments
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let stdout = output.fileHandleForReading.readDataToEndOfFile()
    let stderr = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw OpenSSLCommandFailed(
            arguments: arguments, status: process.terminationStatus, stderr: String(decoding: stderr, as: UTF8.self)
        )
    }
    return String(decoding: stdout, as: UTF8.self)
}
