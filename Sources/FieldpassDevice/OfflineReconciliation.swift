/// The answer to ``SharedDevice/reconcileOfflineShifts()``: every offline shift reported, in
/// the order they happened, with Fieldpass's verdict.
public struct OfflineReconciliation: Sendable, Equatable {
    public let shifts: [ReconciledOfflineShift]

    /// The shift that was running on the device, if one was: accepted with its tokens adopted,
    /// the worker goes on online; refused, it has ended.
    public var running: ReconciledOfflineShift? {
        shifts.first(where: \.wasRunning)
    }
}
