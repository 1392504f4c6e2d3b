public import FieldpassDomain
public import Foundation

/// Access tokens: revoked before they expire, the standing a bearer check reads, and the uses
/// of the DPoP proofs presented with them.
extension TransactionalStore {
    public func revokeAccessToken(jti: String, expiresAt: Date) async throws {
        try await writing { transaction in
            try await transaction.execute(RefreshTokenStatements.revokeAccessToken, jti, expiresAt.timeIntervalSince1970)
            try await transaction.announce([.token(jti: jti, expiresAt: expiresAt.timeIntervalSince1970)])
        }
        await revocationsCaughtUp()
    }

    public func standing(jti: String, userID: String?, deviceID: String?, environmentID: String) async throws -> TokenStanding {
        try await reading { transaction in
            let revoked = try await transaction.value(RefreshTokenStatements.revoked, jti, deviceID, as: Bool.self) ?? false
            var user: UserRecord?
            if let userID { user = try await transaction.user(id: userID, environmentID: environmentID) }
            return TokenStanding(user: user, revoked: revoked)
        }
    }

    /// The primary key decides between instances: of two uses at once, one inserts; the other
    /// waits for the first to commit, then finds its row.
    public func recordDPoPProof(replayKey: String, expiresAt: Date) async throws -> Bool {
        try await writing { transaction in
            try await transaction.first(DPoPTables.recordProof, replayKey, expiresAt.timeIntervalSince1970) != nil
        }
    }
}
