/// A refresh token to store, by its hash (the only form of it that is kept), and its device
/// marked seen. A rotation's successor also marks the token it replaces rotated, keeping the
/// successor's hash and its sealed form for a retry within the grace.
package struct RefreshTokenIssue: Sendable, Equatable {
    package var hash: String
    package var userID: String
    package var deviceID: String
    package var expiresAt: Double
    /// The end of the sign-in it belongs to: no successor outlives it.
    package var maxExpiresAt: Double
    /// The hash of the token it succeeds, `nil` for a sign-in's first token.
    package var replacedHash: String?
    package var sealedSuccessor: [UInt8]?
    /// The key the token is bound to (DPoP), which every use must prove; a successor keeps it.
    package var dpopThumbprint: String?

    package init(
        hash: String, userID: String, deviceID: String, expiresAt: Double, maxExpiresAt: Double, replacedHash: String? = nil,
        sealedSuccessor: [UInt8]? = nil, dpopThumbprint: String? = nil
    ) {
        self.hash = hash
        self.userID = userID
        self.deviceID = deviceID
        self.expiresAt = expiresAt
        self.maxExpiresAt = maxExpiresAt
        self.replacedHash = replacedHash
        self.sealedSuccessor = sealedSuccessor
        self.dpopThumbprint = dpopThumbprint
    }
}
