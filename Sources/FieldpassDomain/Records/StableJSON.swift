import Foundation

/// JSON text Fieldpass writes: sorted keys, so stored rows, frames and logs stay stable, and
/// plain slashes, so realm paths stay readable.
package enum StableJSON {
    package static func text(_ value: some Encodable) throws -> String {
        String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}
