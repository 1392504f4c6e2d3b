/// What Fieldpass said of one offline shift the device reported.
public struct ReconciledOfflineShift: Sendable, Equatable {
    /// Accepted, with the real shift's id, or refused and why.
    public enum Verdict: Sendable, Equatable {
        case accepted(shiftID: String)
        case refused(OfflineShiftRefusal)
    }

    public let shift: OfflineShift
    public let verdict: Verdict
    /// Whether the shift was running on the device when it was reported.
    public let wasRunning: Bool
    /// Whether the device now holds the real shift's tokens: the running shift accepted, for
    /// ``SharedDevice/client`` to hand out. An accepted running shift without them is one whose
    /// first answer was lost (Fieldpass answers tokens once): the worker signs in online.
    public let tokensAdopted: Bool
}
