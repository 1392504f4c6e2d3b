import Logging
import PostgresNIO

/// The PostgreSQL schema, as numbered migrations: a migration, once released, never changes.
///
/// It mirrors the SQLite schema (timestamps are seconds since 1970 as `double precision`),
/// so both stores share their records and their rules.
package enum PostgresSchema {
    /// Each migration runs in its own transaction, recorded in `fieldpass_migrations`.
    package static let migrations: [(id: String, sql: String)] = [
        (
            "1-initial",
            """
            CREATE TABLE users (
                id text PRIMARY KEY,
                environment_id text NOT NULL,
                email text NOT NULL,
                role text NOT NULL DEFAULT 'worker',
                idp_issuer text,
                idp_subject text,
                created_at double precision NOT NULL,
                disabled_at double precision,
                signed_in_at double precision,
                UNIQUE (environment_id, email)
            );
            CREATE TABLE realms (
                path text PRIMARY KEY,
                environment_id text NOT NULL,
                user_id text REFERENCES users(id) ON DELETE CASCADE,
                initialized boolean NOT NULL DEFAULT false,
                created_at double precision NOT NULL,
                initialized_at double precision,
                feed_seq bigint NOT NULL
            );
            CREATE INDEX realms_user ON realms(user_id);
            CREATE INDEX realms_feed ON realms(environment_id, feed_seq);
            CREATE TABLE devices (
                id text PRIMARY KEY,
                user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                name text NOT NULL,
                platform text NOT NULL,
                created_at double precision NOT NULL,
                last_seen_at double precision NOT NULL,
                revoked_at double precision
            );
            CREATE UNIQUE INDEX devices_live_name ON devices(user_id, name, platform) WHERE revoked_at IS NULL;
            CREATE INDEX devices_user ON devices(user_id);
            CREATE TABLE sessions (
                id text PRIMARY KEY,
                user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                device_id text NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
                environment_id text NOT NULL,
                email text NOT NULL,
                state text NOT NULL UNIQUE,
                state_used boolean NOT NULL DEFAULT false,
                nonce text NOT NULL,
                code_verifier text NOT NULL,
                user_code text NOT NULL DEFAULT '',
                login_id text UNIQUE,
                csrf_token text,
                confirmed_at double precision,
                status text NOT NULL,
                last_seq integer NOT NULL DEFAULT 0,
                created_at double precision NOT NULL,
                expires_at double precision NOT NULL,
                ended_at double precision
            );
            CREATE INDEX sessions_user_status ON sessions(user_id, status);
            CREATE INDEX sessions_expiry ON sessions(expires_at);
            CREATE TABLE session_events (
                id bigint PRIMARY KEY,
                session_id text NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
                seq integer NOT NULL,
                type text NOT NULL,
                frame text NOT NULL,
                terminal boolean NOT NULL,
                created_at double precision NOT NULL,
                UNIQUE (session_id, seq)
            );
            CREATE TABLE refresh_tokens (
                token_hash text PRIMARY KEY,
                user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                device_id text NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
                created_at double precision NOT NULL,
                expires_at double precision NOT NULL,
                max_expires_at double precision NOT NULL,
                revoked_at double precision,
                rotated_at double precision,
                successor_hash text,
                successor_sealed bytea
            );
            CREATE INDEX refresh_tokens_device ON refresh_tokens(device_id);
            CREATE TABLE revoked_tokens (
                jti text PRIMARY KEY,
                expires_at double precision NOT NULL
            );
            CREATE TABLE teams (
                id text PRIMARY KEY,
                environment_id text NOT NULL,
                name text NOT NULL,
                created_at double precision NOT NULL
            );
            CREATE UNIQUE INDEX teams_name ON teams(environment_id, lower(name));
            CREATE TABLE team_members (
                team_id text NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
                user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                added_at double precision NOT NULL,
                PRIMARY KEY (team_id, user_id)
            );
            CREATE INDEX team_members_user ON team_members(user_id);
            CREATE TABLE realm_grants (
                user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                realm_path text NOT NULL,
                access text NOT NULL,
                granted_at double precision NOT NULL,
                PRIMARY KEY (user_id, realm_path)
            );
            CREATE TABLE audit_log (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                environment_id text NOT NULL,
                actor text NOT NULL,
                action text NOT NULL,
                target text NOT NULL,
                before text,
                after text,
                at double precision NOT NULL
            );
            CREATE INDEX audit_log_environment ON audit_log(environment_id, id);
            CREATE TABLE counters (name text PRIMARY KEY, value bigint NOT NULL);
            INSERT INTO counters (name, value) VALUES ('realm_feed', 0), ('session_events', 0);
            """
        ),
        ("2-bindings", BindingsMigration.sql),
        (
            // Every sweep deletes the expired rows of both tables (TokenPurge): found by index, not by scanning.
            "3-token-expiry",
            """
            CREATE INDEX refresh_tokens_expiry ON refresh_tokens(expires_at);
            CREATE INDEX revoked_tokens_expiry ON revoked_tokens(expires_at);
            CREATE INDEX refresh_tokens_rotated ON refresh_tokens(rotated_at) WHERE rotated_at IS NOT NULL;
            """
        ),
        (
            // Feed positions are given after commit, by readers (PostgresFeed): rows are stored
            // unplaced, with their transaction's id and their order of writing.
            "4-feed-placement",
            """
            CREATE SEQUENCE feed_writes;
            ALTER TABLE session_events DROP CONSTRAINT session_events_pkey;
            ALTER TABLE session_events ALTER COLUMN id DROP NOT NULL;
            CREATE UNIQUE INDEX session_events_position ON session_events(id);
            ALTER TABLE session_events ADD COLUMN writer_xid xid8, ADD COLUMN written bigint;
            CREATE INDEX session_events_unplaced ON session_events(writer_xid) WHERE id IS NULL;
            ALTER TABLE realms ALTER COLUMN feed_seq DROP NOT NULL;
            ALTER TABLE realms ADD COLUMN writer_xid xid8, ADD COLUMN written bigint;
            CREATE INDEX realms_unplaced ON realms(writer_xid) WHERE feed_seq IS NULL;
            """
        ),
        (
            // The integration API's lifecycle events (LifecycleEventRules), written with the
            // audit entries they stand for and placed after commit like the other feeds.
            "6-lifecycle-events",
            """
            CREATE TABLE lifecycle_events (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                environment_id text NOT NULL,
                body text NOT NULL,
                at double precision NOT NULL,
                feed_seq bigint,
                writer_xid xid8,
                written bigint
            );
            CREATE UNIQUE INDEX lifecycle_events_position ON lifecycle_events(environment_id, feed_seq);
            CREATE INDEX lifecycle_events_unplaced ON lifecycle_events(writer_xid) WHERE feed_seq IS NULL;
            CREATE INDEX lifecycle_events_at ON lifecycle_events(at);
            INSERT INTO counters (name, value) VALUES ('lifecycle_events', 0);
            """
        ),
        // SCIM provisioning: people's SCIM attributes, and groups (teams or role groups).
        ("7-scim", ScimTables.sql(real: "double precision") + "\n"),
        ("8-console", ConsoleTables.sql(real: "double precision") + "\n"),
        (
            // The People page lists by email in byte order, as SQLite does. The unique index on
            // (environment_id, email) has the database's collation, which is byte order only
            // under "C": without this one, every page sorted all of the environment's people.
            "9-people-order",
            """
            CREATE INDEX users_email_order ON users(environment_id, email COLLATE "C");
            """
        ),
        ("10-app-return", AppReturnColumns.sql),
        // Each feed placed in one round trip (see ``PostgresFeed/firstPlacingFunctionSQL``),
        // and the hubs' read of the session events with its placing.
        ("11-placing-functions", PostgresFeed.allCases.map(\.firstPlacingFunctionSQL).joined() + PostgresFeed.sessionEventsAfterSQL),
        // The placing functions' checks read the `*_unplaced` index (see ``PostgresFeed/indexCheckedPlacingFunctionSQL``).
        ("12-placing-checks-by-index", PostgresFeed.allCases.map(\.indexCheckedPlacingFunctionSQL).joined()),
        ("13-device-installations", DeviceInstallations.sql),
        ("14-device-sign-ins", DeviceSignIns.sql),
        ("15-dpop", DPoPTables.sql),
        ("16-shared-devices", SharedDeviceTables.sql),
        ("17-shifts", ShiftTables.sql),
        ("18-badges", BadgeTables.sql),
        ("19-shift-amr", ShiftTables.amrColumn),
        ("20-pin-issuers", BadgeTables.pinIssuerColumn + ShiftTables.pinIssuerColumn),
        ("21-offline-permits", OfflinePermitTables.sql),
        // Placing finds the rows it places by key alone (see ``PostgresFeed/PlacedRowLookup``).
        ("22-placing-by-key", PostgresFeed.allCases.map(\.placingFunctionSQL).joined()),
    ]

    /// Any fixed number: the advisory lock that lets one instance migrate while the others wait.
    static let migrationLock: Int64 = 0x6669_656C_6470_6173

    /// Applies the migrations not applied yet. Safe to run from several instances at once.
    static func migrate(_ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(migrationLock))", logger: logger)
            try await connection.query(
                "CREATE TABLE IF NOT EXISTS fieldpass_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
                logger: logger
            )
        }
        for migration in migrations {
            try await connection.withTransaction(logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(\(migrationLock))", logger: logger)
                let applied = try await connection.query(
                    "SELECT 1 FROM fieldpass_migrations WHERE id = \(migration.id)", logger: logger
                ).collect()
                guard applied.isEmpty else { return }
                // One statement per query: the extended protocol takes no more.
                for statement in migration.sql.split(separator: ";\n") where !statement.allSatisfy(\.isWhitespace) {
                    try await connection.query(PostgresQuery(unsafeSQL: String(statement)), logger: logger)
                }
                try await connection.query("INSERT INTO fieldpass_migrations (id) VALUES (\(migration.id))", logger: logger)
            }
        }
    }

    /// The migrations that are not applied yet (all of them on an empty database).
    static func pending(_ connection: PostgresConnection, logger: Logger) async throws -> [String] {
        let exists =
            try await connection.query("SELECT to_regclass('fieldpass_migrations') IS NOT NULL", logger: logger)
            .collect().first?.decode(Bool.self) ?? false
        guard exists else { return migrations.map(\.id) }
        var applied: Set<String> = []
        for try await id in try await connection.query("SELECT id FROM fieldpass_migrations", logger: logger).decode(String.self) {
            applied.insert(id)
        }
        return migrations.map(\.id).filter { !applied.contains($0) }
    }
}
