import CommandLineSupport
import FieldpassDevice
import Foundation

/// How `fieldpass tablet` shows the shift changes that every app on the tablet hears.
enum ShiftChangeLines {
    /// `seq  time  what  email`, one change a line.
    static func line(_ change: ShiftChange) -> String {
        let what =
            switch change.kind {
            case .shiftStarted: "shift started"
            case .shiftEnded(let reason): "shift ended (\(reason))"
            }
        return "\(change.seq)  \(change.at.formatted(.iso8601))  \(what)  \(change.email)"
    }

    /// Prints what the tablet's apps hear of a command's own doing: the changes `matching`
    /// picks, from the first, through the first of them that `last` picks too.
    static func heard(
        on tablet: SharedDevice, matching: (ShiftChange) -> Bool, through last: (ShiftChange) -> Bool
    ) async throws {
        Console.line("Every app on the tablet hears:")
        for try await change in tablet.changes() where matching(change) {
            Console.line("    " + line(change))
            if last(change) { return }
        }
    }
}
