/// The statements of an onboarding session both stores share (``SharedStatement``).
enum OnboardingStatements {
    /// What ``OnboardingSession`` reads, from a session `s` joined with its user `u`.
    static let sessionColumns = """
        s.id, s.user_id, s.device_id, s.environment_id, s.email, s.nonce, s.code_verifier,
        s.status, s.expires_at, s.login_id IS NOT NULL AS confirms_device, s.browser_binding,
        s.app_redirect_uri, s.app_state, s.dpop_jkt, u.role
        """

    /// The session with this id.
    static let session = SharedStatement { value in
        "SELECT \(sessionColumns) FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.id = \(value(1))"
    }

    /// The person's role, as a registration's pending session carries it: person.
    static let role = SharedStatement { value in "SELECT role FROM users WHERE id = \(value(1))" }

    /// The person's live device of an installation: person, installation.
    static let liveDevice = SharedStatement { value in
        "SELECT id FROM devices WHERE user_id = \(value(1)) AND install_id = \(value(2)) AND revoked_at IS NULL"
    }

    /// Stores a registration's device, unless it is a live one used again, which keeps its
    /// last_seen_at: id, person, name, platform, installation, time.
    static let insertDevice = SharedStatement { value in
        """
        INSERT INTO devices (id, user_id, name, platform, install_id, created_at, last_seen_at)
        VALUES (\(value(1)), \(value(2)), \(value(3)), \(value(4)), \(value(5)), \(value(6)), \(value(6)))
        ON CONFLICT (id) DO NOTHING
        """
    }

    /// Stores a registration's pending session: id, person, device, environment, email, state,
    /// nonce, code verifier, user code, login id, CSRF token, status, time, expiry, app
    /// redirect URI, app state, DPoP thumbprint.
    static let insertSession = SharedStatement { value in
        """
        INSERT INTO sessions (id, user_id, device_id, environment_id, email, state, nonce, code_verifier,
                              user_code, login_id, csrf_token, status, created_at, expires_at,
                              app_redirect_uri, app_state, dpop_jkt)
        VALUES (\((1...17).map(value).joined(separator: ", ")))
        """
    }

    /// The id of the session of a login link: login id.
    static let sessionOfLogin = SharedStatement { value in "SELECT id FROM sessions WHERE login_id = \(value(1))" }

    /// The session of a login link, and its device, as the confirmation page shows them.
    static let confirmation = SharedStatement { value in
        """
        SELECT s.id, s.state, s.status, s.user_code, s.csrf_token, s.confirmed_at, s.created_at, s.expires_at,
               d.name, d.platform
        FROM sessions s JOIN devices d ON d.id = s.device_id WHERE s.login_id = \(value(1))
        """
    }

    /// Confirms a session: when, and by which browser.
    static let confirm = SharedStatement { value in
        "UPDATE sessions SET confirmed_at = \(value(1)), browser_binding = \(value(2)) WHERE id = \(value(3))"
    }

    /// Where the browser of a session that expired unused returns to its app, if it came from one.
    static let expiredAppReturn = SharedStatement { value in
        """
        SELECT app_redirect_uri, app_state FROM sessions
        WHERE state = \(value(1)) AND NOT state_used AND expires_at <= \(value(2)) AND app_redirect_uri IS NOT NULL
        """
    }

    /// Counts a step of onboarding (``ConsoleTables``): environment, outcome, reason, time.
    static let countOutcome = SharedStatement { value in
        "INSERT INTO onboarding_outcomes (environment_id, outcome, reason, at) VALUES (\(value(1)), \(value(2)), \(value(3)), \(value(4)))"
    }
}

extension OnboardingStatements {
    /// A device's name and platform, and whether it signed in before: device.
    static let deviceSignIn = SharedStatement { value in
        "SELECT name, platform, signed_in_at IS NOT NULL AS signed_in_before FROM devices WHERE id = \(value(1))"
    }

    /// Marks a device signed in, the first time: time, device.
    static let markSignedIn = SharedStatement { value in
        "UPDATE devices SET signed_in_at = \(value(1)) WHERE id = \(value(2)) AND signed_in_at IS NULL"
    }
}
