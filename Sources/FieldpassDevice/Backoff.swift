/// How long to wait before trying again: doubling from `initial` up to `maximum`, each wait
/// drawn between half and all of it, so devices dropped together do not return together.
struct Backoff: Sendable {
    let initial: Duration
    let maximum: Duration
    private var current: Duration

    init(initial: Duration = .milliseconds(500), maximum: Duration = .seconds(8)) {
        self.initial = initial
        self.maximum = maximum
        current = initial
    }

    /// The next wait, and the one after it doubled.
    mutating func next() -> Duration {
        let wait = current
        current = min(current * 2, maximum)
        return wait / 2 + (wait / 2) * Double.random(in: 0...1)
    }

    /// Back to `initial` after a call that worked.
    mutating func reset() {
        current = initial
    }
}
