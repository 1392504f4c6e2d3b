/// Offline permits and the offline shifts reconciled with them, the same in both dialects. A
/// permit is kept by what reconciliation decides on (its device, person, badge, times); its
/// signed form is not kept. A shift reported with a permit is recorded once per permit and
/// start (a unique index), so that a report sent twice, or to two instances at once, records
/// it once.
enum OfflinePermitTables {
    static let sql = """
        CREATE TABLE offline_permits (
            id TEXT PRIMARY KEY,
            shared_device_id TEXT NOT NULL REFERENCES shared_devices(id),
            environment_id TEXT NOT NULL,
            user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            badge_id TEXT NOT NULL,
            issued_at DOUBLE PRECISION NOT NULL,
            expires_at DOUBLE PRECISION NOT NULL,
            withdrawn_at DOUBLE PRECISION,
            failed_pins_counted INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX offline_permits_device ON offline_permits(shared_device_id, expires_at);
        CREATE INDEX offline_permits_person ON offline_permits(user_id) WHERE withdrawn_at IS NULL;
        ALTER TABLE shifts ADD COLUMN offline_permit_id TEXT;
        CREATE UNIQUE INDEX shifts_offline ON shifts(offline_permit_id, started_at) WHERE offline_permit_id IS NOT NULL;
        """

    private static let columnNames = [
        "id", "shared_device_id", "environment_id", "user_id", "badge_id", "issued_at", "expires_at", "withdrawn_at", "failed_pins_counted",
    ]
    static let columns = columnNames.joined(separator: ", ")

    /// The columns, of the table as `alias` names it in a join.
    private static func columns(of alias: String) -> String { columnNames.map { "\(alias).\($0)" }.joined(separator: ", ") }

    /// Id, device, environment, person, badge, issued, expires.
    static let insert = SharedStatement { value in
        """
        INSERT INTO offline_permits (id, shared_device_id, environment_id, user_id, badge_id, issued_at, expires_at)
        VALUES (\(value(1)), \(value(2)), \(value(3)), \(value(4)), \(value(5)), \(value(6)), \(value(7)))
        """
    }

    /// Time, person: the person's live permits withdrawn.
    static let withdraw = SharedStatement { value in
        "UPDATE offline_permits SET withdrawn_at = \(value(1)) WHERE user_id = \(value(2)) AND withdrawn_at IS NULL"
    }

    /// The reported total of wrong PINs, permit.
    static let countFailures = SharedStatement { value in
        "UPDATE offline_permits SET failed_pins_counted = \(value(1)) WHERE id = \(value(2))"
    }

    /// Permit.
    static let one = SharedStatement { value in "SELECT \(columns) FROM offline_permits WHERE id = \(value(1))" }

    /// The device's permits that are unexpired and not withdrawn, of people not disabled whose
    /// badge, still the one the permit was issued at, is unexpired, latest first: device, now.
    static let liveOfDevice = SharedStatement { value in
        """
        SELECT \(columns(of: "p"))
        FROM offline_permits p JOIN users u ON u.id = p.user_id JOIN badges b ON b.id = p.badge_id
        WHERE p.shared_device_id = \(value(1)) AND p.withdrawn_at IS NULL AND p.expires_at > \(value(2))
            AND u.disabled_at IS NULL AND b.expires_at > \(value(2))
        ORDER BY p.issued_at DESC, p.id DESC
        """
    }

    /// The device's unexpired permits, withdrawn or not, with their people's emails, latest end
    /// first: device, now.
    static let unexpiredOfDevice = SharedStatement { value in
        """
        SELECT \(columns(of: "p")), u.email
        FROM offline_permits p JOIN users u ON u.id = p.user_id
        WHERE p.shared_device_id = \(value(1)) AND p.expires_at > \(value(2))
        ORDER BY p.expires_at DESC, p.id
        """
    }

    /// The shift recorded with a permit and start: permit, start.
    static let recordedShift = SharedStatement { value in
        "SELECT \(ShiftTables.columns) FROM shifts WHERE offline_permit_id = \(value(1)) AND started_at = \(value(2))"
    }

    /// A shift that ran offline, ended: id, device, environment, person, email, start, end,
    /// reason, methods, permit.
    static let insertEndedShift = SharedStatement { value in
        """
        INSERT INTO shifts (
            id, shared_device_id, environment_id, user_id, email, started_at, ended_at, end_reason, amr, offline_permit_id)
        VALUES (
            \(value(1)), \(value(2)), \(value(3)), \(value(4)), \(value(5)), \(value(6)), \(value(7)), \(value(8)), \(value(9)),
            \(value(10)))
        """
    }
}
