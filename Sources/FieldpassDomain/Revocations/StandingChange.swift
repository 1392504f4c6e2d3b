/// A change to what stands against access tokens, as a store announces it to every instance's
/// ``LiveRevocations`` (on PostgreSQL, as the payload of a `NOTIFY`).
///
/// It names what changed rather than carrying the new state: a user's record is read again
/// when next needed, so an announcement can never overwrite a newer state with an older one.
package enum StandingChange: Sendable, Equatable {
    /// The person's role, binding, disabling, teams (or a team's name) or grants changed:
    /// their record and what they may reach are read again.
    case user(id: String)
    /// The device was revoked, which is for good.
    case device(id: String)
    /// The access token was revoked; it fails verification anyway once `expiresAt` has passed.
    case token(jti: String, expiresAt: Double)

    /// The text a `NOTIFY` carries (well under PostgreSQL's 8,000 bytes).
    package var payload: String {
        switch self {
        case .user(let id): "user:\(id)"
        case .device(let id): "device:\(id)"
        // The expiry first: a jti is opaque text and may hold a colon.
        case .token(let jti, let expiresAt): "token:\(expiresAt):\(jti)"
        }
    }

    /// The change a payload announces, or `nil` for another kind of notification.
    package init?(payload: String) {
        let (kind, rest) = Self.split(payload)
        guard let rest, !rest.isEmpty else { return nil }
        switch kind {
        case "user": self = .user(id: rest)
        case "device": self = .device(id: rest)
        case "token":
            let (expiry, jti) = Self.split(rest)
            guard let expiresAt = Double(expiry), let jti, !jti.isEmpty else { return nil }
            self = .token(jti: jti, expiresAt: expiresAt)
        default: return nil
        }
    }

    /// The text before the first colon, and the rest after it (`nil` without a colon).
    private static func split(_ text: some StringProtocol) -> (head: String, rest: String?) {
        guard let colon = text.firstIndex(of: ":") else { return (String(text), nil) }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }
}
