package import Foundation
import Tokens

/// What stands against access tokens, kept in memory: revoked tokens (until they would fail
/// verification anyway), revoked devices, and the records of the people whose tokens were
/// checked lately, with their role and whether they are disabled, and what they may reach
/// (their ``AccessFacts``: teams and grants) when that was asked.
///
/// Revoked tokens and devices are complete (loaded whole, then grown by announcements); people
/// are remembered as their tokens are checked and forgotten when a change to them is announced,
/// so a person this set does not know is simply read from the store. Pure logic, no clock.
package struct RevocationSet: Sendable, Equatable {
    /// A revoked token is kept this long past its expiry: the verifier's clock leeway.
    package static let expiryMargin = JWTVerificationPolicy().leeway

    /// Expiry (seconds since 1970) by `jti`.
    package private(set) var revokedTokens: [String: Double]
    package private(set) var revokedDevices: Set<String>
    /// Records by user id, as the store last gave them.
    private var users: [String: UserRecord] = [:]
    /// Teams and grants by user id, as the store last gave them.
    private var facts: [String: AccessFacts] = [:]

    package init(revokedTokens: [String: Double] = [:], revokedDevices: Set<String> = []) {
        self.revokedTokens = revokedTokens
        self.revokedDevices = revokedDevices
    }

    /// The standing of a token, or `nil` when it takes a person this set does not know (or
    /// knows in another environment): then the store answers.
    package func standing(jti: String, userID: String?, deviceID: String?, environmentID: String) -> TokenStanding? {
        let revoked = revokedTokens[jti] != nil || deviceID.map(revokedDevices.contains) == true
        guard let userID else { return TokenStanding(user: nil, revoked: revoked) }
        guard let user = users[userID], user.environmentID == environmentID else { return nil }
        return TokenStanding(user: user, revoked: revoked)
    }

    /// What the person may reach, or `nil` when this set does not know it (or knows the
    /// person in another environment): then the store answers.
    package func accessFacts(userID: String, environmentID: String) -> AccessFacts? {
        guard let known = facts[userID], known.user.environmentID == environmentID else { return nil }
        return known
    }

    /// Keeps a person's record as the store gave it.
    package mutating func remember(_ user: UserRecord) {
        users[user.id] = user
    }

    /// Keeps what a person may reach, and their record with it, as the store gave them.
    package mutating func remember(_ known: AccessFacts) {
        facts[known.user.id] = known
        users[known.user.id] = known.user
    }

    package mutating func apply(_ change: StandingChange) {
        switch change {
        case .user(let id):
            users[id] = nil
            facts[id] = nil
        case .device(let id): revokedDevices.insert(id)
        case .token(let jti, let expiresAt): revokedTokens[jti] = expiresAt
        }
    }

    /// Forgets the revoked tokens that fail verification by now anyway.
    package mutating func dropExpired(now: Date) {
        let cutoff = now.timeIntervalSince1970 - Self.expiryMargin
        revokedTokens = revokedTokens.filter { $0.value > cutoff }
    }
}
