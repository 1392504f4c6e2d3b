import Synchronization

/// Whether a shared transaction of several changes puts each in a savepoint from the start
/// (see ``PostgresStore/commit(_:)``): only after the last one had a change that failed.
///
/// Without savepoints, one failing change makes its batch run twice. A stranger who sends
/// failing changes on end (replayed DPoP proofs) thus pays for savepoints in every batch, as
/// before, not for every batch twice; the next batch without a failure drops them again.
final class SavepointPolicy: Sendable {
    private let failedLately = Atomic<Bool>(false)

    var startWithSavepoints: Bool { failedLately.load(ordering: .relaxed) }

    func batchEnded(withFailure failed: Bool) {
        failedLately.store(failed, ordering: .relaxed)
    }
}
