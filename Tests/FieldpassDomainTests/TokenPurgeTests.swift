import Testing
@testable import FieldpassDomain

@Suite("Token purge, without a database")
struct TokenPurgeTests {
    @Test func whatIsSpentIsDecidedByTheClockAlone() {
        let now = 100_000.0
        #expect(
            TokenPurge.steps(now: now) == [
                .forgetRevocations(expiredBy: now - RevocationSet.expiryMargin),
                .deleteExpiredRefreshTokens(expiredBy: now),
                .deleteTwiceRotated(rotatedBefore: now - 300),
                .clearSealedSuccessors(rotatedBefore: now - 300),
                .forgetDPoPProofs(expiredBy: now),
            ])
    }

    @Test func aRevocationOutlivesItsTokenByTheVerifiersLeewayAndARotationByTheLongestGrace() {
        guard case .forgetRevocations(let expiredBy) = TokenPurge.steps(now: 1_000).first else {
            Issue.record("revocations are forgotten first")
            return
        }
        #expect(expiredBy < 1_000)
        #expect(
            TokenPurge.steps(now: 1_000).contains(.clearSealedSuccessors(rotatedBefore: 1_000 - Double(TokenPurge.maxRefreshReuseGrace))))
    }
}
