import Foundation
import Logging

/// Writes each log record to standard error as one JSON object on one line: `time`,
/// `level`, `label`, `message` and the metadata, each value as a string, for log
/// collectors that parse JSON.
struct JSONLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]

    init(label: String, level: Logger.Level) {
        self.label = label
        logLevel = level
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var fields = metadata.merging(event.metadata ?? [:]) { _, new in new }.mapValues(\.description)
        fields["time"] = Date().formatted(.iso8601)
        fields["level"] = event.level.rawValue
        fields["label"] = label
        fields["message"] = event.message.description
        guard var bytes = try? Self.encoder.encode(fields) else { return }
        bytes.append(0x0A)
        // One write per record, so lines from several threads never interleave.
        _ = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}
