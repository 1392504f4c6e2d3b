import Foundation

/// Lines for the person at the terminal, written at once: each onboarding step must show
/// as it happens, also when the output is piped to a file or another program.
package enum Console {
    package static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// Rows under a header, each column as wide as its widest cell.
    package static func table(header: [String], rows: [[String]]) {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        for row in all {
            let cells = row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }
            line(cells.joined(separator: "  "))
        }
    }
}
