import GRDB

/// The SQLite schema, as numbered migrations: a migration, once released, never changes.
enum SQLiteSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("1-onboarding") { db in
            try db.execute(
                sql: """
                    CREATE TABLE users (
                        id TEXT PRIMARY KEY,
                        environment_id TEXT NOT NULL,
                        email TEXT NOT NULL,
                        role TEXT NOT NULL DEFAULT 'worker',
                        idp_subject TEXT,
                        created_at REAL NOT NULL,
                        UNIQUE (environment_id, email)
                    );
                    CREATE TABLE realms (
                        path TEXT PRIMARY KEY,
                        environment_id TEXT NOT NULL,
                        user_id TEXT REFERENCES users(id) ON DELETE CASCADE,
                        initialized INTEGER NOT NULL DEFAULT 0,
                        created_at REAL NOT NULL,
                        initialized_at REAL
                    );
                    CREATE INDEX realms_user ON realms(user_id);
                    CREATE TABLE devices (
                        id TEXT PRIMARY KEY,
                        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        name TEXT NOT NULL,
                        platform TEXT NOT NULL,
                        created_at REAL NOT NULL,
                        last_seen_at REAL NOT NULL,
                        UNIQUE (user_id, name, platform)
                    );
                    CREATE TABLE sessions (
                        id TEXT PRIMARY KEY,
                        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        device_id TEXT NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
                        environment_id TEXT NOT NULL,
                        email TEXT NOT NULL,
                        state TEXT NOT NULL UNIQUE,
                        state_used INTEGER NOT NULL DEFAULT 0,
                        nonce TEXT NOT NULL,
                        code_verifier TEXT NOT NULL,
                        status TEXT NOT NULL,
                        last_seq INTEGER NOT NULL DEFAULT 0,
                        created_at REAL NOT NULL,
                        expires_at REAL NOT NULL,
                        ended_at REAL
                    );
                    CREATE INDEX sessions_user_status ON sessions(user_id, status);
                    CREATE INDEX sessions_expiry ON sessions(expires_at);
                    CREATE TABLE session_events (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
                        seq INTEGER NOT NULL,
                        type TEXT NOT NULL,
                        frame TEXT NOT NULL,
                        terminal INTEGER NOT NULL,
                        created_at REAL NOT NULL,
                        UNIQUE (session_id, seq)
                    );
                    CREATE TABLE refresh_tokens (
                        token_hash TEXT PRIMARY KEY,
                        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        device_id TEXT NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
                        created_at REAL NOT NULL,
                        expires_at REAL NOT NULL,
                        revoked_at REAL
                    );
                    """)
        }
        migrator.registerMigration("2-directory") { db in
            try db.execute(
                sql: """
                    CREATE TABLE teams (
                        id TEXT PRIMARY KEY,
                        environment_id TEXT NOT NULL,
                        name TEXT NOT NULL COLLATE NOCASE,
                        created_at REAL NOT NULL,
                        UNIQUE (environment_id, name)
                    );
                    CREATE TABLE team_members (
                        team_id TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
                        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        added_at REAL NOT NULL,
                        PRIMARY KEY (team_id, user_id)
                    );
                    CREATE INDEX team_members_user ON team_members(user_id);
                    CREATE TABLE realm_grants (
                        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        realm_path TEXT NOT NULL,
                        access TEXT NOT NULL,
                        granted_at REAL NOT NULL,
                        PRIMARY KEY (user_id, realm_path)
                    );
                    CREATE TABLE audit_log (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        environment_id TEXT NOT NULL,
                        actor TEXT NOT NULL,
                        action TEXT NOT NULL,
                        target TEXT NOT NULL,
                        before TEXT,
                        after TEXT,
                        at REAL NOT NULL
                    );
                    CREATE INDEX audit_log_environment ON audit_log(environment_id, id);
                    CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
                    ALTER TABLE realms ADD COLUMN feed_seq INTEGER NOT NULL DEFAULT 0;
                    UPDATE realms SET feed_seq = rowid;
                    INSERT INTO counters (name, value) SELECT 'realm_feed', COALESCE(MAX(feed_seq), 0) FROM realms;
                    CREATE INDEX realms_feed ON realms(environment_id, feed_seq);
                    CREATE INDEX refresh_tokens_device ON refresh_tokens(device_id);
                    """)
        }
        migrator.registerMigration("3-trust") { db in
            // `devices` is rebuilt so that a revoked device frees its name: registering the
            // same name and platform again makes a new device, and the old one's tokens stay dead.
            try db.execute(
                sql: """
                    ALTER TABLE users ADD COLUMN idp_issuer TEXT;
                    ALTER TABLE users ADD COLUMN disabled_at REAL;
                    ALTER TABLE users ADD COLUMN signed_in_at REAL;
                    UPDATE users SET signed_in_at = created_at WHERE idp_subject IS NOT NULL;
                    CREATE TABLE devices_new (
                        id TEXT PRIMARY KEY,
                        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                        name TEXT NOT NULL,
                        platform TEXT NOT NULL,
                        created_at REAL NOT NULL,
                        last_seen_at REAL NOT NULL,
                        revoked_at REAL
                    );
                    INSERT INTO devices_new (id, user_id, name, platform, created_at, last_seen_at)
                        SELECT id, user_id, name, platform, created_at, last_seen_at FROM devices;
                    DROP TABLE devices;
                    ALTER TABLE devices_new RENAME TO devices;
                    CREATE UNIQUE INDEX devices_live_name ON devices(user_id, name, platform) WHERE revoked_at IS NULL;
                    CREATE INDEX devices_user ON devices(user_id);
                    ALTER TABLE sessions ADD COLUMN login_id TEXT;
                    ALTER TABLE sessions ADD COLUMN csrf_token TEXT;
                    ALTER TABLE sessions ADD COLUMN user_code TEXT NOT NULL DEFAULT '';
                    ALTER TABLE sessions ADD COLUMN confirmed_at REAL;
                    CREATE UNIQUE INDEX sessions_login ON sessions(login_id);
                    ALTER TABLE refresh_tokens ADD COLUMN max_expires_at REAL NOT NULL DEFAULT 0;
                    UPDATE refresh_tokens SET max_expires_at = expires_at;
                    ALTER TABLE refresh_tokens ADD COLUMN rotated_at REAL;
                    ALTER TABLE refresh_tokens ADD COLUMN successor_hash TEXT;
                    ALTER TABLE refresh_tokens ADD COLUMN successor_sealed BLOB;
                    CREATE TABLE revoked_tokens (
                        jti TEXT PRIMARY KEY,
                        expires_at REAL NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("4-bindings") { db in
            try db.execute(sql: BindingsMigration.sql)
        }
        // Every sweep deletes the expired rows of both tables (TokenPurge): found by index, not by scanning.
        migrator.registerMigration("5-token-expiry") { db in
            try db.execute(
                sql: """
                    CREATE INDEX refresh_tokens_expiry ON refresh_tokens(expires_at);
                    CREATE INDEX revoked_tokens_expiry ON revoked_tokens(expires_at);
                    CREATE INDEX refresh_tokens_rotated ON refresh_tokens(rotated_at) WHERE rotated_at IS NOT NULL;
                    """)
        }
        // The integration API's lifecycle events (LifecycleEventRules), written with the audit
        // entries they stand for; the id is the feed position.
        migrator.registerMigration("6-lifecycle-events") { db in
            try db.execute(
                sql: """
                    CREATE TABLE lifecycle_events (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        environment_id TEXT NOT NULL,
                        body TEXT NOT NULL,
                        at REAL NOT NULL
                    );
                    CREATE INDEX lifecycle_events_environment ON lifecycle_events(environment_id, id);
                    CREATE INDEX lifecycle_events_at ON lifecycle_events(at);
                    """)
        }
        // SCIM provisioning: people's SCIM attributes, and groups (teams or role groups).
        migrator.registerMigration("7-scim") { db in
            try db.execute(sql: ScimTables.sql(real: "REAL"))
        }
        migrator.registerMigration("8-console") { db in
            try db.execute(sql: ConsoleTables.sql(real: "REAL"))
        }
        migrator.registerMigration("9-app-return") { db in
            try db.execute(sql: AppReturnColumns.sql)
        }
        migrator.registerMigration("10-device-installations") { db in
            try db.execute(sql: DeviceInstallations.sql)
        }
        migrator.registerMigration("11-device-sign-ins") { db in
            try db.execute(sql: DeviceSignIns.sql)
        }
        migrator.registerMigration("12-dpop") { db in
            try db.execute(sql: DPoPTables.sql)
        }
        migrator.registerMigration("13-shared-devices") { db in
            try db.execute(sql: SharedDeviceTables.sql)
        }
        migrator.registerMigration("14-shifts") { db in
            try db.execute(sql: ShiftTables.sql)
        }
        migrator.registerMigration("15-badges") { db in
            try db.execute(sql: BadgeTables.sql)
        }
        migrator.registerMigration("16-shift-amr") { db in
            try db.execute(sql: ShiftTables.amrColumn)
        }
        migrator.registerMigration("17-pin-issuers") { db in
            try db.execute(sql: BadgeTables.pinIssuerColumn + ShiftTables.pinIssuerColumn)
        }
        migrator.registerMigration("18-offline-permits") { db in
            try db.execute(sql: OfflinePermitTables.sql)
        }
        return migrator
    }
}
