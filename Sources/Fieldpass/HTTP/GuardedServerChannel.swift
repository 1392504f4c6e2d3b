import HummingbirdCore
import Logging
import NIOCore

/// The server's connections: `inner`'s, each watched by a ``FirstRequestGuard`` until its
/// first request head has arrived, and closed when the server cancels what is left of a
/// shutdown that ran out of time.
///
/// A connection that ends before its first head (a browser's connection opened ahead of
/// need and let go, a port check, one closed at the deadline or the shutdown) is no error
/// and is not handed to `inner`: the WebSocket upgrade's handling logs every connection
/// whose upgrade never began as an error, without a request id.
struct GuardedServerChannel<Inner: ServerChildChannel>: ServerChildChannel {
    struct Value: ServerChildChannelValue {
        let inner: Inner.Value
        /// Whether the first request head arrived (``FirstRequestGuard``).
        let firstHead: EventLoopFuture<Bool>

        var channel: any Channel { inner.channel }
    }

    let inner: Inner
    /// How long a new connection may take to send its first request head.
    let firstRequestDeadline: TimeAmount

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let firstHead = channel.eventLoop.makePromise(of: Bool.self)
        do {
            try channel.pipeline.syncOperations.addHandler(
                FirstRequestGuard(deadline: firstRequestDeadline, verdict: firstHead), position: .first)
        } catch {
            firstHead.fail(error)
            return channel.eventLoop.makeFailedFuture(error)
        }
        return inner.setup(channel: channel, logger: logger).map { Value(inner: $0, firstHead: firstHead.futureResult) }
    }

    func handle(value: Value, logger: Logger) async {
        await withTaskCancellationHandler {
            guard (try? await value.firstHead.get()) == true else {
                logger.debug("Connection closed before its first request")
                return
            }
            await inner.handle(value: value.inner, logger: logger)
        } onCancel: {
            value.channel.close(promise: nil)
        }
    }
}
