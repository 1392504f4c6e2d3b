import ArgumentParser
import Logging

/// `--log-format`: how `fieldpass serve` writes its log to standard error.
enum LogFormat: String, ExpressibleByArgument, CaseIterable {
    /// swift-log's plain lines, for people.
    case text
    /// One JSON object a line, for log collectors.
    case json

    /// Makes every logger of the process write in this format at `level`.
    func bootstrap(level: Logger.Level) {
        switch self {
        case .text:
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            }
        case .json:
            LoggingSystem.bootstrap { label in JSONLogHandler(label: label, level: level) }
        }
    }
}
