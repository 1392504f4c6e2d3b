import Foundation
import Testing
@testable import FieldpassDomain

/// A console session's life, decided with no store: the idle end moves with each request, never
/// past the absolute end; a session past either end, or whose person is disabled or gone, is over.
@Suite("Console session rules")
struct ConsoleSessionRulesTests {
    static let start = Date(timeIntervalSince1970: 1_900_000_000)

    static func at(_ seconds: TimeInterval) -> Date { start.addingTimeInterval(seconds) }

    static let person = UserRecord(
        id: "u1", environmentID: "acme", email: "boss@acme.test", role: .admin, createdAt: start, disabled: false)

    /// Created at ``start``, idle after `idle` and over after `lifetime` seconds.
    static func session(idle: TimeInterval = 600, lifetime: TimeInterval = 3600) -> ConsoleSession {
        ConsoleSession(
            idHash: "s", userID: "u1", environmentID: "acme", createdAt: start, expiresAt: at(lifetime), idleExpiresAt: at(idle))
    }

    static func moved(_ session: ConsoleSession, idleEnd: TimeInterval) -> ConsoleSession {
        var moved = session
        moved.idleExpiresAt = at(idleEnd)
        return moved
    }

    @Test func aLiveSessionAnswersAndItsIdleEndMoves() {
        let session = Self.session()
        #expect(
            ConsoleSessionRules.check(session, person: Self.person, now: Self.at(500), idleTimeout: 600)
                == .answer(Self.moved(session, idleEnd: 1100), person: Self.person))
    }

    @Test func theIdleEndNeverMovesPastTheAbsoluteEnd() {
        let session = Self.session(idle: 100, lifetime: 300)
        #expect(
            ConsoleSessionRules.check(session, person: Self.person, now: Self.at(50), idleTimeout: 600)
                == .answer(Self.moved(session, idleEnd: 300), person: Self.person))
        #expect(
            ConsoleSessionRules.check(session, person: Self.person, now: Self.at(99), idleTimeout: 600)
                == .answer(Self.moved(session, idleEnd: 300), person: Self.person))
    }

    @Test func aSessionIsOverAtItsIdleEnd() {
        let session = Self.session(idle: 600)
        #expect(ConsoleSessionRules.check(session, person: Self.person, now: Self.at(600), idleTimeout: 600) == .end)
        #expect(ConsoleSessionRules.check(session, person: Self.person, now: Self.at(601), idleTimeout: 600) == .end)
    }

    @Test func aSessionIsOverAtItsAbsoluteEndThoughItsIdleEndIsLater() {
        // Stored idle ends are never past the absolute end; the absolute end decides anyway.
        let session = Self.session(idle: 600, lifetime: 400)
        #expect(ConsoleSessionRules.check(session, person: Self.person, now: Self.at(399), idleTimeout: 600) != .end)
        #expect(ConsoleSessionRules.check(session, person: Self.person, now: Self.at(400), idleTimeout: 600) == .end)
        #expect(ConsoleSessionRules.check(session, person: Self.person, now: Self.at(450), idleTimeout: 600) == .end)
    }

    @Test func aSessionOfADisabledPersonIsOverWhateverItsEnds() {
        var disabled = Self.person
        disabled.disabled = true
        #expect(ConsoleSessionRules.check(Self.session(), person: disabled, now: Self.at(1), idleTimeout: 600) == .end)
    }

    @Test func aSessionWhosePersonIsGoneOrOfAnotherEnvironmentIsOver() {
        var elsewhere = Self.person
        elsewhere.environmentID = "other"
        var someoneElse = Self.person
        someoneElse.id = "u2"
        for person in [nil, elsewhere, someoneElse] as [UserRecord?] {
            #expect(ConsoleSessionRules.check(Self.session(), person: person, now: Self.at(1), idleTimeout: 600) == .end)
        }
    }
}
