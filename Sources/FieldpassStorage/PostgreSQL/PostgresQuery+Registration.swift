import FieldpassDomain
import Foundation
import PostgresNIO

/// The parts of a statement that creates a person or registers a device, their values bound
/// in place, so that one statement can both create the person and register their device.
extension PostgresQuery.StringInterpolation {
    /// The common table expressions `created` (the person's id and role, when this inserted
    /// them: none when the email is taken) and `realm` (their personal realm, unplaced in
    /// the realm feed, for the created row only).
    mutating func appendInterpolation(creating person: DirectoryRules.NewPerson, in environmentID: String, at now: Double) {
        appendLiteral("created AS (INSERT INTO users (id, environment_id, email, role, created_at) VALUES (")
        appendList([person.id, environmentID, person.email, person.role.rawValue])
        appendLiteral(", ")
        appendInterpolation(now)
        appendLiteral(
            ") ON CONFLICT (environment_id, email) DO NOTHING RETURNING id, role), "
                + "realm AS (INSERT INTO realms (path, environment_id, user_id, created_at, writer_xid, written) SELECT "
        )
        appendList([person.realmPath, environmentID])
        appendLiteral(", id, ")
        appendInterpolation(now)
        appendLiteral(", \(PostgresFeed.unplacedMark) FROM created)")
    }

    /// The common table expressions `device` (the registration's device, `deviceID`), `counted`
    /// and `session` (the registration's session, returning its `device_id`), written once for
    /// each row of the earlier expression `person` (the id of the person registering), none
    /// when it has none. A reused device keeps its `last_seen_at` (the update only makes
    /// `RETURNING` give the row): an install_id is no secret, so only a sign-in or a refresh
    /// says the device was seen.
    mutating func appendInterpolation(registering registration: DeviceRegistration, deviceID: String, at now: Double) {
        appendLiteral("device AS (INSERT INTO devices (id, user_id, name, platform, install_id, created_at, last_seen_at) SELECT ")
        appendInterpolation(deviceID)
        appendLiteral(", person.id, ")
        appendList([registration.deviceName, registration.platform, registration.installID])
        appendLiteral(", ")
        appendList([now, now])
        appendLiteral(
            " FROM person ON CONFLICT (id) DO UPDATE SET last_seen_at = devices.last_seen_at RETURNING id, user_id), "
                + "counted AS (INSERT INTO onboarding_outcomes (environment_id, outcome, at) SELECT "
        )
        appendList([registration.environmentID, OnboardingOutcome.registered.rawValue])
        appendLiteral(", ")
        appendInterpolation(now)
        appendLiteral(
            " FROM person), session AS (INSERT INTO sessions (id, user_id, device_id, environment_id, email, state, nonce, "
                + "code_verifier, user_code, login_id, csrf_token, status, created_at, expires_at, app_redirect_uri, app_state, "
                + "dpop_jkt) SELECT "
        )
        appendInterpolation(registration.sessionID)
        appendLiteral(", device.user_id, device.id, ")
        appendList([
            registration.environmentID, registration.email, registration.state, registration.nonce, registration.codeVerifier,
            registration.userCode, registration.confirmation?.loginID, registration.confirmation?.csrfToken,
            SessionRules.registered.rawValue,
        ])
        appendLiteral(", ")
        appendList([now, registration.expiresAt.timeIntervalSince1970])
        appendLiteral(", ")
        appendList([registration.appReturn?.uri, registration.appReturn?.state, registration.dpopThumbprint])
        appendLiteral(" FROM device RETURNING device_id)")
    }

    /// `values`, each bound, separated by commas; `nil` is a `NULL` of the values' type.
    private mutating func appendList<Value: PostgresDynamicTypeEncodable>(_ values: [Value?]) {
        for (index, value) in values.enumerated() {
            if index > 0 { appendLiteral(", ") }
            appendInterpolation(value)
        }
    }
}
