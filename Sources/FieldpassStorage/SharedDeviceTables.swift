/// Shared devices' table and statements, the same in both dialects. A code is kept only as
/// its hash, and only until it is used; a key belongs to one device, ever.
enum SharedDeviceTables {
    static let sql = """
        CREATE TABLE shared_devices (
            id TEXT PRIMARY KEY,
            environment_id TEXT NOT NULL,
            name TEXT NOT NULL,
            team_id TEXT REFERENCES teams(id) ON DELETE SET NULL,
            code_hash TEXT UNIQUE,
            created_at DOUBLE PRECISION NOT NULL,
            enrollment_expires_at DOUBLE PRECISION NOT NULL,
            enrolled_at DOUBLE PRECISION,
            key_thumbprint TEXT UNIQUE,
            unenrolled_at DOUBLE PRECISION
        );
        CREATE INDEX shared_devices_environment ON shared_devices(environment_id, created_at);
        """

    static let columns = "id, environment_id, name, team_id, created_at, enrollment_expires_at, enrolled_at, key_thumbprint, unenrolled_at"

    /// Id, environment, name, team, code hash, time, enrollment expiry.
    static let insert = SharedStatement { value in
        """
        INSERT INTO shared_devices (id, environment_id, name, team_id, code_hash, created_at, enrollment_expires_at)
        VALUES (\(value(1)), \(value(2)), \(value(3)), \(value(4)), \(value(5)), \(value(6)), \(value(7)))
        """
    }

    /// The environment's devices, oldest first: environment.
    static let all = SharedStatement { value in
        "SELECT \(columns) FROM shared_devices WHERE environment_id = \(value(1)) ORDER BY created_at, id"
    }

    /// One device: id, environment.
    static let one = SharedStatement { value in
        "SELECT \(columns) FROM shared_devices WHERE id = \(value(1)) AND environment_id = \(value(2))"
    }

    /// The environment's devices not unenrolled whose name is this one in any case:
    /// environment, name.
    static let namesakes = SharedStatement { value in
        """
        SELECT \(columns) FROM shared_devices
        WHERE environment_id = \(value(1)) AND lower(name) = lower(\(value(2))) AND unenrolled_at IS NULL
        """
    }

    /// Waits for the other transactions creating a device of this name (in any case) in the
    /// environment to commit, so that of two at once the second sees the first's device:
    /// environment, name. SQLite's single writer already runs one at a time.
    static let takeTurnsOnName = SharedStatement(dialects: { sql in
        guard sql.isPostgres else { return "SELECT ?1, ?2" }
        return "SELECT pg_advisory_xact_lock(hashtextextended('shared_device' || E'\\n' || $1 || E'\\n' || lower($2), 0))"
    })

    /// The device a code was issued for, of any environment: code hash.
    static let byCode = SharedStatement { value in "SELECT \(columns) FROM shared_devices WHERE code_hash = \(value(1))" }

    /// The device that enrolled with a key, of any environment: thumbprint.
    static let byKey = SharedStatement { value in "SELECT \(columns) FROM shared_devices WHERE key_thumbprint = \(value(1))" }

    /// Whether some device has the key: thumbprint.
    static let keyInUse = SharedStatement { value in "SELECT 1 FROM shared_devices WHERE key_thumbprint = \(value(1))" }

    /// Time, thumbprint, id.
    static let enroll = SharedStatement { value in
        "UPDATE shared_devices SET enrolled_at = \(value(1)), key_thumbprint = \(value(2)), code_hash = NULL WHERE id = \(value(3))"
    }

    /// Time, id.
    static let unenroll = SharedStatement { value in
        "UPDATE shared_devices SET unenrolled_at = \(value(1)), code_hash = NULL WHERE id = \(value(2))"
    }

    /// Whether the team is of the environment: team, environment.
    static let teamExists = SharedStatement { value in
        "SELECT 1 FROM teams WHERE id = \(value(1)) AND environment_id = \(value(2))"
    }

    /// The teams a person is a member of: person.
    static let teamsOf = SharedStatement { value in "SELECT team_id FROM team_members WHERE user_id = \(value(1))" }
}
