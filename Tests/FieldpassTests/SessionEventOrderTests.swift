import Synchronization
import Testing
@testable import Fieldpass
@testable import FieldpassDomain

@Suite("A socket's event order")
struct SessionEventOrderTests {
    private static func event(_ seq: Int) -> StoredEvent {
        StoredEvent(rowID: 0, sessionID: "s", seq: seq, event: .sessionExpired, storedAt: 0)
    }

    @Test func eachEventIsSentOnceInSeqOrderAndAGapIsFilledFromTheStore() async throws {
        let reads = Mutex<[Int]>([])
        // The store holds 1 to 4; an event past a gap reads it.
        var order = SessionEventOrder(after: 0) { after in
            reads.withLock { $0.append(after) }
            return (after + 1...4).map(Self.event)
        }
        #expect(try await order.due(Self.event(1)).map(\.seq) == [1])
        // Committed here before 2, which another instance stored, came through the feed.
        #expect(try await order.due(Self.event(3)).map(\.seq) == [2, 3, 4])
        #expect(reads.withLock { $0 } == [1])
        // The feed brings 2, 3 and 4 again: sent already.
        for seq in 2...4 { #expect(try await order.due(Self.event(seq)).isEmpty) }
        #expect(order.lastSeq == 4 && reads.withLock { $0 } == [1])
    }

    @Test func eventsSentFromTheStoreBeforeTheLiveOnesAreNotSentAgain() async throws {
        let reads = Mutex<[Int]>([])
        var order = SessionEventOrder(after: 2) { after in
            reads.withLock { $0.append(after) }
            return [Self.event(3)]
        }
        #expect(try await order.stored().map(\.seq) == [3])
        #expect(try await order.due(Self.event(3)).isEmpty)
        #expect(try await order.due(Self.event(4)).map(\.seq) == [4])
        // Only the read before the live events: no gap to fill.
        #expect(reads.withLock { $0 } == [2] && order.lastSeq == 4)
    }
}
