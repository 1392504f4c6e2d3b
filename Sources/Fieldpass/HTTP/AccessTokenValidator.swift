import FieldpassDomain
import Foundation
import Tokens

/// Decides whether one of our access tokens still counts: its signature and claims first,
/// then what the store knows since it was issued (the token or its device revoked, its user
/// disabled or gone, its service account removed from the configuration).
///
/// With ``LiveRevocations`` (PostgreSQL) that knowledge is answered from memory, at most
/// ``StandingFreshness/bound`` behind the store, and read from the store whenever memory
/// cannot answer.
///
/// The bearer middleware and introspection ask the same question, so they share this answer.
struct AccessTokenValidator: Sendable {
    /// Why a token does not count.
    enum Rejection: Error {
        case invalid
        case revoked
        case userUnknown
        case userDisabled
        case serviceAccountRemoved
    }

    /// A token that counts, and who holds it.
    struct Validated: Sendable {
        let claims: AccessTokenClaims
        let identity: Identity
    }

    let keys: KeyRotation
    let credentials: any CredentialStore
    let revocations: LiveRevocations?
    /// Environment id by service account id.
    let serviceAccounts: [String: String]

    /// The verified claims alone, without asking the store (for revoking a token).
    func claims(of token: String, now: Date) -> AccessTokenClaims? {
        try? keys.published(now: now).verifier.verify(token, now: now).decode(AccessTokenClaims.self)
    }

    func validate(_ token: String, now: Date) async throws -> Validated {
        guard let claims = claims(of: token, now: now) else { throw Rejection.invalid }
        if claims.role == AccessTokenClaims.serviceRole {
            let accountID = String(claims.sub.dropFirst("service:".count))
            guard claims.sub.hasPrefix("service:"), serviceAccounts[accountID] == claims.env else {
                throw Rejection.serviceAccountRemoved
            }
            let standing = try await standing(jti: claims.jti, userID: nil, deviceID: nil, environmentID: claims.env)
            guard !standing.revoked else { throw Rejection.revoked }
            return Validated(claims: claims, identity: Identity(environmentID: claims.env, principal: .service(accountID: accountID)))
        }
        let standing = try await standing(
            jti: claims.jti, userID: claims.sub, deviceID: claims.revocableDeviceID, environmentID: claims.env
        )
        guard let user = standing.user else { throw Rejection.userUnknown }
        guard !user.disabled else { throw Rejection.userDisabled }
        guard !standing.revoked else { throw Rejection.revoked }
        return Validated(
            claims: claims, identity: Identity(environmentID: claims.env, principal: .user(user), deviceID: claims.revocableDeviceID)
        )
    }

    /// From memory when it can answer, else from the store.
    private func standing(jti: String, userID: String?, deviceID: String?, environmentID: String) async throws -> TokenStanding {
        let lookup = revocations?.lookup(jti: jti, userID: userID, deviceID: deviceID, environmentID: environmentID, now: .now)
        if case .known(let standing) = lookup { return standing }
        let standing = try await credentials.standing(jti: jti, userID: userID, deviceID: deviceID, environmentID: environmentID)
        if case .unknown(let generation?) = lookup, let user = standing.user {
            revocations?.remember(user, ifUnchangedSince: generation)
        }
        return standing
    }
}
