/// Which of a hub's reads of the event feed also place what committed
/// (``OnboardingStore/events(afterRowID:limit:)``) rather than read what is placed
/// (``OnboardingStore/placedEvents(afterRowID:limit:)``): the first, and then one at least
/// half the safety net's interval after the last that placed.
///
/// A read that a commit's announcement woke needs no placing: the announcing instance placed
/// the rows before it announced them. On PostgreSQL, with two instances under a push, a
/// third of the hubs' reads had read those rows already and placed again, each queuing on
/// the placing lock (1,813 placing reads for 4,500 callbacks, 2026-12-07). What placing
/// reads remain are the safety net's: for a writer that stopped between its commit and its
/// announcement. Half the interval keeps one within the safety net's interval of such a
/// commit, however the looks that placed fall between the timer's ticks.
struct PlacingLooks {
    private let spacing: Duration
    private var last: ContinuousClock.Instant?

    init(safetyNetInterval: Duration) {
        spacing = safetyNetInterval / 2
    }

    /// Whether the read at `now` places; if so, it counts as the last that placed.
    mutating func places(at now: ContinuousClock.Instant) -> Bool {
        if let last, now - last < spacing { return false }
        last = now
        return true
    }
}
