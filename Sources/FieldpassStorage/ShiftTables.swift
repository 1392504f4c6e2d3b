/// Shifts on shared devices, and the events each device's apps follow, the same in both
/// dialects. A device has at most one open shift (a partial unique index); its events are
/// numbered by a counter on the device's row, taken by the change that writes them, so that
/// on PostgreSQL they commit in the order of their numbers, as one session's events do.
enum ShiftTables {
    static let sql = """
        CREATE TABLE shifts (
            id TEXT PRIMARY KEY,
            shared_device_id TEXT NOT NULL REFERENCES shared_devices(id),
            environment_id TEXT NOT NULL,
            user_id TEXT NOT NULL,
            email TEXT NOT NULL,
            started_at DOUBLE PRECISION NOT NULL,
            ended_at DOUBLE PRECISION,
            end_reason TEXT
        );
        CREATE UNIQUE INDEX shifts_open ON shifts(shared_device_id) WHERE ended_at IS NULL;
        CREATE INDEX shifts_device ON shifts(shared_device_id, started_at);
        CREATE INDEX shifts_running ON shifts(started_at) WHERE ended_at IS NULL;
        CREATE INDEX shifts_person ON shifts(user_id, started_at);
        CREATE TABLE shift_events (
            shared_device_id TEXT NOT NULL REFERENCES shared_devices(id),
            seq BIGINT NOT NULL,
            type TEXT NOT NULL,
            shift_id TEXT NOT NULL,
            user_id TEXT NOT NULL,
            email TEXT NOT NULL,
            reason TEXT,
            at DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (shared_device_id, seq)
        );
        ALTER TABLE shared_devices ADD COLUMN event_seq BIGINT NOT NULL DEFAULT 0;
        """

    static let columns = "id, shared_device_id, user_id, email, started_at, ended_at, end_reason, amr, pin_issued_by, offline_permit_id"

    /// A badge shift's authentication methods, space-separated (``ShiftRecord/amr``).
    static let amrColumn = "ALTER TABLE shifts ADD COLUMN amr TEXT;"

    /// Who made the temporary PIN a badge shift was started with (``ShiftRecord/pinIssuedBy``).
    static let pinIssuerColumn = "ALTER TABLE shifts ADD COLUMN pin_issued_by TEXT;\n"

    /// Id, device, environment, person, email, start, methods, the temporary PIN's issuer, the
    /// offline permit it started with.
    static let insert = SharedStatement { value in
        """
        INSERT INTO shifts (id, shared_device_id, environment_id, user_id, email, started_at, amr, pin_issued_by, offline_permit_id)
        VALUES (\(value(1)), \(value(2)), \(value(3)), \(value(4)), \(value(5)), \(value(6)), \(value(7)), \(value(8)), \(value(9)))
        """
    }

    /// `amr` as stored, and back.
    static func stored(_ amr: [String]?) -> String? { amr?.joined(separator: " ") }
    static func amr(_ stored: String?) -> [String]? { stored.map { $0.split(separator: " ").map(String.init) } }

    /// Ends the shift if it is open, answering its id then: time, reason, id.
    static let end = SharedStatement { value in
        "UPDATE shifts SET ended_at = \(value(1)), end_reason = \(value(2)) WHERE id = \(value(3)) AND ended_at IS NULL RETURNING id"
    }

    /// The device's next event number: device.
    static let nextEventSeq = SharedStatement { value in
        "UPDATE shared_devices SET event_seq = event_seq + 1 WHERE id = \(value(1)) RETURNING event_seq"
    }

    /// Device, number, type, shift, person, email, reason, time.
    static let insertEvent = SharedStatement { value in
        """
        INSERT INTO shift_events (shared_device_id, seq, type, shift_id, user_id, email, reason, at)
        VALUES (\(value(1)), \(value(2)), \(value(3)), \(value(4)), \(value(5)), \(value(6)), \(value(7)), \(value(8)))
        """
    }

    /// The device's events after a number, oldest first: device, number, how many at most.
    static let eventsAfter = SharedStatement { value in
        """
        SELECT seq, type, shift_id, user_id, email, reason, at FROM shift_events
        WHERE shared_device_id = \(value(1)) AND seq > \(value(2)) ORDER BY seq LIMIT \(value(3))
        """
    }

    /// The device's open shift: device.
    static let open = SharedStatement { value in
        "SELECT \(columns) FROM shifts WHERE shared_device_id = \(value(1)) AND ended_at IS NULL"
    }

    /// The open shifts of an environment's devices: environment.
    static let openInEnvironment = SharedStatement { value in
        "SELECT \(columns) FROM shifts WHERE environment_id = \(value(1)) AND ended_at IS NULL"
    }

    /// The device's shifts, latest first: device, how many at most.
    static let history = SharedStatement { value in
        "SELECT \(columns) FROM shifts WHERE shared_device_id = \(value(1)) ORDER BY started_at DESC, id LIMIT \(value(2))"
    }

    /// The open shifts started before a time (past the longest shift), with their devices'
    /// last sight, oldest first: time, how many at most.
    static let overdue = SharedStatement { value in
        """
        SELECT s.id, s.shared_device_id, s.environment_id, s.user_id, s.email, s.started_at, s.ended_at, s.end_reason,
               s.amr, s.pin_issued_by, s.offline_permit_id, d.last_seen_at
        FROM shifts s JOIN devices d ON d.id = s.id
        WHERE s.ended_at IS NULL AND (s.started_at <= \(value(1)) OR d.last_seen_at <= \(value(2)))
        ORDER BY s.started_at LIMIT \(value(3))
        """
    }

    /// A person's shifts, latest first: person, environment, how many at most.
    static let ofPerson = SharedStatement { value in
        """
        SELECT \(columns) FROM shifts WHERE user_id = \(value(1)) AND environment_id = \(value(2))
        ORDER BY started_at DESC, id LIMIT \(value(3))
        """
    }

    /// A person's open shifts: person.
    static let openOfPerson = SharedStatement { value in
        "SELECT \(columns) FROM shifts WHERE user_id = \(value(1)) AND ended_at IS NULL"
    }

    static let openWithID = SharedStatement { value in
        "SELECT \(columns) FROM shifts WHERE id = \(value(1)) AND ended_at IS NULL"
    }

    /// The columns of a refresh token's shift, as `fetchRefreshToken` joins them (`s`).
    static let refreshColumns =
        "s.shared_device_id AS shift_device_id, s.email AS shift_email, s.started_at AS shift_started_at, s.ended_at AS shift_ended_at, s.end_reason AS shift_end_reason, s.amr AS shift_amr"
}
