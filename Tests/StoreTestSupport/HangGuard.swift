public import Testing

public extension Trait where Self == TimeLimitTrait {
    /// The time limit of a suite whose failure could be a hang (a deadlocked commit, a wait that
    /// never ends): it turns the hang into a failure that names the test.
    ///
    /// It is not a measure of speed, and cannot be one: swift-testing runs every suite at once on
    /// the machine's cores, so a test that starts first shares them with all the others and ends
    /// with the whole run. The group-commit test takes 5 s alone and ended after 72 s in a clean
    /// clone's run of the suite (52 to 60 s here), past the one minute these suites had. Five
    /// minutes is four times the longest run seen; the speed of these paths is `make bench`'s.
    static var hangGuard: Self { .timeLimit(.minutes(5)) }
}
