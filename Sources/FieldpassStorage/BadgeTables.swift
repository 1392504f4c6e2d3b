/// Badges' table and statements, the same in both dialects. A badge and its PIN are kept only
/// as hashes; a person has one badge at most.
enum BadgeTables {
    static let sql = """
        CREATE TABLE badges (
            id TEXT PRIMARY KEY,
            user_id TEXT NOT NULL UNIQUE REFERENCES users(id) ON DELETE CASCADE,
            environment_id TEXT NOT NULL,
            badge_hash TEXT NOT NULL UNIQUE,
            pin_hash TEXT NOT NULL,
            pin_temporary BOOLEAN NOT NULL,
            failed_pins INTEGER NOT NULL DEFAULT 0,
            locked_at DOUBLE PRECISION,
            issued_at DOUBLE PRECISION NOT NULL,
            expires_at DOUBLE PRECISION NOT NULL
        );
        """

    static let columns =
        "id, user_id, environment_id, badge_hash, pin_hash, pin_temporary, pin_issued_by, failed_pins, locked_at, issued_at, expires_at"

    /// Who made a badge's temporary PIN (``BadgeRecord/pinIssuedBy``).
    static let pinIssuerColumn = "ALTER TABLE badges ADD COLUMN pin_issued_by TEXT;\n"

    /// Id, person, environment, badge hash, PIN hash, issued, expires, the PIN's issuer: a new
    /// badge, in place of the person's old one.
    static let save = SharedStatement { value in
        """
        INSERT INTO badges (
            id, user_id, environment_id, badge_hash, pin_hash, pin_temporary, pin_issued_by, failed_pins, issued_at, expires_at)
        VALUES (\(value(1)), \(value(2)), \(value(3)), \(value(4)), \(value(5)), TRUE, \(value(8)), 0, \(value(6)), \(value(7)))
        ON CONFLICT (user_id) DO UPDATE SET id = excluded.id, badge_hash = excluded.badge_hash, pin_hash = excluded.pin_hash,
            pin_temporary = TRUE, pin_issued_by = excluded.pin_issued_by, failed_pins = 0, locked_at = NULL,
            issued_at = excluded.issued_at, expires_at = excluded.expires_at
        """
    }

    /// Person.
    static let delete = SharedStatement { value in "DELETE FROM badges WHERE user_id = \(value(1))" }

    /// PIN hash, whether temporary, badge, the PIN's issuer (`NULL`: the worker's own).
    static let setPin = SharedStatement { value in
        """
        UPDATE badges SET pin_hash = \(value(1)), pin_temporary = \(value(2)), pin_issued_by = \(value(4)), failed_pins = 0,
            locked_at = NULL
        WHERE id = \(value(3))
        """
    }

    /// How many more wrong PINs, when it locks (`NULL`: it does not), badge.
    static let recordFailures = SharedStatement { value in
        "UPDATE badges SET failed_pins = failed_pins + \(value(1)), locked_at = COALESCE(\(value(2)), locked_at) WHERE id = \(value(3))"
    }

    /// Person.
    static let ofPerson = SharedStatement { value in "SELECT \(columns) FROM badges WHERE user_id = \(value(1))" }

    /// Badge hash.
    /// The badge's person, to lock before the badge: badge hash. A badge's person never
    /// changes, so finding them before the lock is safe.
    static let holder = SharedStatement { value in
        "SELECT id FROM users WHERE id = (SELECT user_id FROM badges WHERE badge_hash = \(value(1)))"
    }

    static let byHash = SharedStatement { value in "SELECT \(columns) FROM badges WHERE badge_hash = \(value(1))" }

    /// Id, person, name, time: a shift's device record, signed in at once.
    static let insertShiftDevice = SharedStatement { value in
        """
        INSERT INTO devices (id, user_id, name, platform, created_at, last_seen_at, signed_in_at)
        VALUES (\(value(1)), \(value(2)), \(value(3)), 'shared-device', \(value(4)), \(value(4)), \(value(4)))
        """
    }
}
