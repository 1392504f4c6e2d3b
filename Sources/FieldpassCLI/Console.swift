import Foundation

/// Lines for the person at the terminal, written at once: each onboarding step must show
/// as it happens, also when the output is piped to a file or another program.
enum Console {
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
}
