import Testing
@testable import Fieldpass

/// A feed cursor shows nothing of the position it stands for, its length included.
@Suite struct FeedCursorTests {
    let cursors = FeedCursor(secretDigest: Array(repeating: 7, count: 32), environmentID: "dev")

    @Test func cursorsFarApartHaveOneLengthAndOpenToTheirPositions() throws {
        let positions: [Int64] = [0, 1, 1_000_000_000, Int64.max]
        let sealed = try positions.map { try cursors.encode($0, feed: .lifecycle) }
        #expect(Set(sealed.map(\.count)).count == 1, "lengths \(sealed.map(\.count))")
        #expect(sealed.map { cursors.decode($0, feed: .lifecycle) } == positions)
    }

    @Test func aCursorOpensOnlyForItsFeedAndEnvironment() throws {
        let sealed = try cursors.encode(42, feed: .realms)
        #expect(cursors.decode(sealed, feed: .lifecycle) == nil)
        let elsewhere = FeedCursor(secretDigest: Array(repeating: 7, count: 32), environmentID: "other")
        #expect(elsewhere.decode(sealed, feed: .realms) == nil)
    }
}
