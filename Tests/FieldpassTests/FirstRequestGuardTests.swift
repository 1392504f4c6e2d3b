import NIOCore
import NIOEmbedded
import Testing
@testable import Fieldpass

/// A connection's first request must arrive in time, and a shutdown does not wait for one
/// that has not: the server's other handlers watch a connection only once that head is in.
@Suite("First request guard")
struct FirstRequestGuardTests {
    private static func connection(deadline: TimeAmount = .seconds(5)) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(FirstRequestGuard(deadline: deadline))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
        return channel
    }

    /// A connection whose guard says, once it steps aside, whether the first head came.
    private static func watched(deadline: TimeAmount = .seconds(5)) throws -> (EmbeddedChannel, EventLoopFuture<Bool>) {
        let loop = EmbeddedEventLoop()
        let verdict = loop.makePromise(of: Bool.self)
        let channel = EmbeddedChannel(loop: loop)
        try channel.pipeline.syncOperations.addHandler(FirstRequestGuard(deadline: deadline, verdict: verdict))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
        return (channel, verdict.futureResult)
    }

    /// The verdict, if given yet.
    private static func verdict(_ future: EventLoopFuture<Bool>) -> Bool? {
        let verdict = NIOLoopBoundBox<Bool?>(nil, eventLoop: future.eventLoop)
        future.whenSuccess { verdict.value = $0 }
        return verdict.value
    }

    @Test func itSaysWhetherTheFirstHeadCameBeforeTheConnectionEnded() throws {
        let (served, head) = try Self.watched()
        #expect(Self.verdict(head) == nil)
        try served.writeInbound(ByteBuffer(string: "GET /healthz HTTP/1.1\r\n\r\n"))
        #expect(Self.verdict(head) == true)
        _ = try served.finish()

        // A browser's connection opened ahead of need, let go; half a head, then gone; one
        // closed for its deadline; one closed for a shutdown.
        let (unused, none) = try Self.watched()
        _ = try unused.finish()
        let (half, partial) = try Self.watched()
        try half.writeInbound(ByteBuffer(string: "GET / HTTP/1.1\r\n"))
        _ = try half.finish()
        let (slow, late) = try Self.watched(deadline: .seconds(5))
        slow.embeddedEventLoop.advanceTime(by: .seconds(5))
        let (quiesced, shutDown) = try Self.watched()
        quiesced.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        quiesced.embeddedEventLoop.run()
        for future in [none, partial, late, shutDown] {
            #expect(Self.verdict(future) == false)
        }
        #expect(!slow.isActive && !quiesced.isActive)
    }

    private static func guarded(_ channel: EmbeddedChannel) -> Bool {
        (try? channel.pipeline.syncOperations.handler(type: FirstRequestGuard.self)) != nil
    }

    @Test func itStepsAsideOnceTheFirstHeadIsInEvenSplitAcrossReadsAndPassesEveryByteOn() throws {
        let channel = try Self.connection()
        for part in ["GET /healthz HTTP/1.1\r\n", "Host: fieldpass\r\n\r", "\n"] {
            #expect(Self.guarded(channel), "removed before the head ended")
            try channel.writeInbound(ByteBuffer(string: part))
            #expect(try channel.readInbound(as: ByteBuffer.self) == ByteBuffer(string: part))
        }
        #expect(!Self.guarded(channel))
        channel.embeddedEventLoop.advanceTime(by: .seconds(10))
        #expect(channel.isActive, "a connection whose request arrived in time was closed")
    }

    @Test func aBlankLineInsideTheHeadIsNotItsEnd() throws {
        let channel = try Self.connection()
        try channel.writeInbound(ByteBuffer(string: "GET / HTTP/1.1\r\nX: \r\r\n\n\r\n"))
        #expect(Self.guarded(channel))
        try channel.writeInbound(ByteBuffer(string: "\r\n"))
        #expect(!Self.guarded(channel))
    }

    @Test func aConnectionWhoseFirstHeadIsNotInByTheDeadlineIsClosed() throws {
        let channel = try Self.connection(deadline: .seconds(5))
        try channel.writeInbound(ByteBuffer(string: "GET / HTTP/1.1\r\n"))
        _ = try channel.readInbound(as: ByteBuffer.self)
        channel.embeddedEventLoop.advanceTime(by: .seconds(4))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(!channel.isActive)
    }

    @Test func aShutdownClosesAConnectionWhoseFirstHeadIsNotIn() throws {
        let channel = try Self.connection()
        channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        channel.embeddedEventLoop.run()
        #expect(!channel.isActive)
    }
}
