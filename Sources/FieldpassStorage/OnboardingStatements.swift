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
