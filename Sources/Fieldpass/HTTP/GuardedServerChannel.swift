import HummingbirdCore
import Logging
import NIOCore

/// The server's connections: `inner`'s, each watched by a ``FirstRequestGuard`` until its
/// first request head has arrived, and closed when the server cancels what is left of a
/// shutdown that ran out of time.
struct GuardedServerChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value

    let inner: Inner
    /// How long a new connection may take to send its first request head.
    let firstRequestDeadline: TimeAmount

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        do {
            try channel.pipeline.syncOperations.addHandler(FirstRequestGuard(deadline: firstRequestDeadline), position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return inner.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await withTaskCancellationHandler {
            await inner.handle(value: value, logger: logger)
        } onCancel: {
            value.channel.close(promise: nil)
        }
    }
}
