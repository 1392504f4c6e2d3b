import Foundation
import Testing
@testable import Tokens

@Suite("Key schedule")
struct KeyScheduleTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    let delay: TimeInterval = 600

    private func file(_ key: SigningKey, _ name: String, addedAt: Date) -> KeyFile {
        KeyFile(key: key, name: name, addedAt: addedAt)
    }

    /// `new` added at `start`, `old` a day before.
    private func oldAndNew(_ old: SigningKey, _ new: SigningKey, delay: TimeInterval) -> KeySchedule {
        KeySchedule(
            files: [file(new, "b.pem", addedAt: start), file(old, "a.pem", addedAt: start.addingTimeInterval(-86_400))],
            publishDelay: delay
        )
    }

    private func states(_ schedule: KeySchedule, at now: Date) -> [String: KeySchedule.State] {
        Dictionary(uniqueKeysWithValues: schedule.entries(at: now).map { ($0.key.kid, $0.state) })
    }

    @Test("a new key is published at once and signs only after the delay")
    func newKeyWaits() throws {
        let old = try Fixtures.es256.get(), new = try Fixtures.es256Other.get()
        let schedule = oldAndNew(old, new, delay: delay)
        let before = start.addingTimeInterval(delay - 1)
        #expect(states(schedule, at: before) == [old.kid: .signing, new.kid: .next])
        #expect(schedule.ring(at: before).signingKey.kid == old.kid)
        #expect(schedule.ring(at: before).jwks.keys.compactMap(\.kid) == [old.kid, new.kid])
        #expect(schedule.entries(at: before).first { $0.key.kid == new.kid }?.signsFrom == start.addingTimeInterval(delay))
        #expect(schedule.nextChange(after: before) == start.addingTimeInterval(delay))

        let after = start.addingTimeInterval(delay)
        #expect(states(schedule, at: after) == [new.kid: .signing, old.kid: .retiring])
        #expect(schedule.ring(at: after).signer.key.kid == new.kid)
        #expect(schedule.nextChange(after: after) == nil)
    }

    @Test("on a first start, with no key past its delay, the oldest signs")
    func firstStart() throws {
        let first = try Fixtures.es256.get(), second = try Fixtures.rs256.get()
        let schedule = KeySchedule(
            files: [file(second, "b.pem", addedAt: start), file(first, "a.pem", addedAt: start.addingTimeInterval(-10))],
            publishDelay: delay
        )
        #expect(states(schedule, at: start) == [first.kid: .signing, second.kid: .next])
    }

    @Test("a removed key stays published, verify-only, for the retention, then goes")
    func removedKeyRetires() throws {
        let old = try Fixtures.es256.get(), new = try Fixtures.es256Other.get()
        let both = oldAndNew(old, new, delay: 0)
        let removal = start.addingTimeInterval(60)
        let onlyNew = KeySchedule(files: [file(new, "b.pem", addedAt: start)], publishDelay: 0)
            .carryingRemovals(from: both, now: removal, retention: 900)
        #expect(states(onlyNew, at: removal) == [new.kid: .signing, old.kid: .retiring])
        #expect(onlyNew.entries(at: removal).last?.publishedUntil == removal.addingTimeInterval(900))
        #expect(onlyNew.nextChange(after: removal) == removal.addingTimeInterval(900))
        #expect(states(onlyNew, at: removal.addingTimeInterval(900)) == [new.kid: .signing])

        // A later reload keeps the removal date rather than starting it again.
        let reread = KeySchedule(files: [file(new, "b.pem", addedAt: start)], publishDelay: 0)
            .carryingRemovals(from: onlyNew, now: removal.addingTimeInterval(300), retention: 900)
        #expect(reread.removed.map(\.publishedUntil) == [removal.addingTimeInterval(900)])
        // Its file put back, it is a file again, not a removed key.
        let restored = both.carryingRemovals(from: onlyNew, now: removal.addingTimeInterval(300), retention: 900)
        #expect(restored.removed.isEmpty)
    }

    @Test("the signing key's file removed: the newest remaining key signs")
    func signingKeyRemoved() throws {
        let old = try Fixtures.es256.get(), new = try Fixtures.es256Other.get()
        let both = oldAndNew(old, new, delay: 0)
        let now = start.addingTimeInterval(10)
        let onlyOld = KeySchedule(files: [file(old, "a.pem", addedAt: start.addingTimeInterval(-86_400))], publishDelay: 0)
            .carryingRemovals(from: both, now: now, retention: 900)
        #expect(states(onlyOld, at: now) == [old.kid: .signing, new.kid: .retiring])
    }
}
