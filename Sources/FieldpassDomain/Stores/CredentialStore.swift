public import Foundation

/// Sign-ins, devices and the life of tokens: what makes a token trustworthy after it was issued.
///
/// Every change is one transaction; those made by a person are audited with it.
public protocol CredentialStore: Sendable {
    /// Checks a successful IdP sign-in against the user's bound identity and state, binds the
    /// identity the first time, makes a bootstrap admin admin at their first sign-in, and sets
    /// the role and teams the sign-in's claims give (``SignInRules``).
    func recordSignIn(_ attempt: SignInAttempt, now: Date) async throws -> SignInOutcome

    /// Forgets the user's bound IdP identity, and revokes every device (with its refresh tokens)
    /// obtained through it: their next sign-in binds anew.
    func resetIdentity(userID: String, by caller: DirectoryCaller, now: Date) async throws

    /// Disables (revoking every device) or enables a person; returns them as they are now.
    func setDisabled(_ disabled: Bool, userID: String, by caller: DirectoryCaller, now: Date) async throws -> UserRecord

    /// A person's devices, newest first.
    func devices(userID: String, environmentID: String) async throws -> [DeviceRecord]

    /// Revokes a device: its refresh tokens stop working, its access tokens stop counting.
    /// Throws `DirectoryError.unknownUser` for a user outside the environment, and
    /// `unknownDevice` when the device is not this user's.
    func revokeDevice(id: String, userID: String, by caller: DirectoryCaller, now: Date) async throws

    /// Swaps a refresh token for its successor (see ``RefreshOutcome``). The rotation's DPoP
    /// proof is recorded in the same transaction: one used before throws
    /// ``DPoPRefusal`` (`replayed`), and nothing is written.
    func rotateRefreshToken(_ rotation: RefreshRotation, now: Date) async throws -> RefreshOutcome

    /// A refresh token that still works, or `nil`.
    func liveRefreshToken(hash: String, now: Date) async throws -> LiveRefreshToken?

    /// Revokes the device a refresh token belongs to (RFC 7009 2.1: the whole grant); one
    /// bound to a key only with that key's `proof`, which is recorded as a rotation's is.
    func revokeRefreshToken(hash: String, proof: DPoPRules.AcceptedProof?, now: Date) async throws -> RefreshRevocation

    /// Records the use of a DPoP proof under its replay key (``DPoPRules/AcceptedProof``) until
    /// `expiresAt`; `false` when a proof with that key was used before, on any instance.
    func recordDPoPProof(replayKey: String, expiresAt: Date) async throws -> Bool

    /// Remembers a revoked access token until it would expire anyway.
    func revokeAccessToken(jti: String, expiresAt: Date) async throws

    /// What stands against an access token now: its user (for people), and whether the token,
    /// its device or its user was revoked or disabled since it was issued.
    func standing(jti: String, userID: String?, deviceID: String?, environmentID: String) async throws -> TokenStanding
}

/// A sign-in the IdP vouched for.
public struct SignInAttempt: Sendable {
    public var userID: String
    public var issuer: String
    public var subject: String
    public var promoteToAdmin: Bool
    /// The role and teams the sign-in's claims give, applied with it (``SignInRules``).
    public var claims: MappedClaims

    public init(userID: String, issuer: String, subject: String, promoteToAdmin: Bool, claims: MappedClaims = .none) {
        self.userID = userID
        self.issuer = issuer
        self.subject = subject
        self.promoteToAdmin = promoteToAdmin
        self.claims = claims
    }
}

/// What Fieldpass makes of a sign-in.
public enum SignInOutcome: Sendable, Equatable {
    case signedIn(AccessFacts)
    /// Another IdP account than the one the user is bound to (audited).
    case identityMismatch
    /// The IdP account is bound to another user of the environment already (audited).
    case identityInUse
    case userDisabled
}

/// One refresh: the old token's hash and the successor's, with the successor sealed under a
/// key only the old token's holder can derive (for retries within the grace).
public struct RefreshRotation: Sendable {
    public var oldHash: String
    public var newHash: String
    public var sealedSuccessor: [UInt8]?
    /// Seconds the successor lives (never past the absolute lifetime of the sign-in).
    public var ttl: Int
    /// Seconds within which the old token may be retried.
    public var grace: Int
    /// The DPoP proof that came with the request, checked already but for its replay, which
    /// the rotation's transaction records; `nil` without one. A bound token is used only
    /// with its own key's.
    public var proof: DPoPRules.AcceptedProof?
    /// How long a shift on a shared device may run: one past a limit ends at its refresh.
    public var shiftLimits: ShiftLimits

    /// The key that proved the request, if one did.
    public var provenThumbprint: String? { proof?.thumbprint }

    public init(
        oldHash: String, newHash: String, sealedSuccessor: [UInt8]?, ttl: Int, grace: Int, proof: DPoPRules.AcceptedProof? = nil,
        shiftLimits: ShiftLimits = ShiftLimits()
    ) {
        self.oldHash = oldHash
        self.newHash = newHash
        self.sealedSuccessor = sealedSuccessor
        self.ttl = ttl
        self.grace = grace
        self.proof = proof
        self.shiftLimits = shiftLimits
    }
}

/// How a refresh ended.
public enum RefreshOutcome: Sendable, Equatable {
    /// The successor was stored.
    case rotated(RefreshGrant)
    /// A retry within the grace: the successor stored by the first attempt, still sealed.
    case retried(RefreshGrant, sealedSuccessor: [UInt8])
    /// Unknown, expired, revoked, or a reuse (which revoked the device).
    case refused
    /// A token bound to a key (DPoP) without that key's proof: refused, and nothing changed,
    /// so that a thief's try neither rotates nor revokes the owner's token.
    case proofRequired
}

/// How a refresh token's revocation ended.
public enum RefreshRevocation: Sendable, Equatable {
    /// Its device is signed out (or was already).
    case revoked
    /// No such token.
    case unknown
    /// A token bound to a key (DPoP) without that key's proof: nothing changed.
    case proofRequired
}

/// A refresh token that still works.
public struct LiveRefreshToken: Sendable, Equatable {
    public var grant: RefreshGrant
    public var issuedAt: Date
    public var expiresAt: Date

    public init(grant: RefreshGrant, issuedAt: Date, expiresAt: Date) {
        self.grant = grant
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
    }
}

/// What the store says of an access token's holder now.
public struct TokenStanding: Sendable, Equatable {
    /// The person, for a person's token; `nil` when they no longer exist (or for a service).
    public var user: UserRecord?
    /// The token (by `jti`) or its device was revoked.
    public var revoked: Bool

    public init(user: UserRecord? = nil, revoked: Bool) {
        self.user = user
        self.revoked = revoked
    }
}
