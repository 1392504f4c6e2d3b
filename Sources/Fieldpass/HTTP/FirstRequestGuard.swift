import NIOCore

/// Watches a connection until its first request head has arrived: closes it when that takes
/// longer than `deadline`, or when the server begins to shut down meanwhile. Then it steps
/// aside. It stands in the pipeline before anything else because the WebSocket-upgrade
/// pipeline adds its own idle timeout and shutdown handling only once the first head is
/// read: without this, a connection that never finishes a request would stay open for
/// good and hold up every graceful shutdown.
///
/// `verdict` says which it was: `true` once the head is in, `false` if the connection ended
/// first (the client hung up, as a browser does with a connection it opened ahead of need,
/// or it was closed for the deadline or the shutdown).
final class FirstRequestGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private static let headEnd: [UInt8] = Array("\r\n\r\n".utf8)

    private let deadline: TimeAmount
    private let verdict: EventLoopPromise<Bool>?
    private var timeout: Scheduled<Void>?
    /// How many bytes of ``headEnd`` the data read so far ends with.
    private var matched = 0
    private var headArrived = false

    init(deadline: TimeAmount, verdict: EventLoopPromise<Bool>? = nil) {
        self.deadline = deadline
        self.verdict = verdict
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        timeout = context.eventLoop.scheduleTask(in: deadline) { loopBound.value.close(promise: nil) }
    }

    /// Removed by itself once the head is in, or with the whole pipeline when the connection ends.
    func handlerRemoved(context: ChannelHandlerContext) {
        timeout?.cancel()
        timeout = nil
        verdict?.succeed(headArrived)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        let complete = bytes.readableBytesView.contains { byte in
            matched = byte == Self.headEnd[matched] ? matched + 1 : (byte == Self.headEnd[0] ? 1 : 0)
            return matched == Self.headEnd.count
        }
        if complete { headArrived = true }
        context.fireChannelRead(data)
        if complete {
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent {
            // No request is under way yet: nothing is lost by closing now.
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}
