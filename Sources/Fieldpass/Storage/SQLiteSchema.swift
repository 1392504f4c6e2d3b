import GRDB

/// The SQLite schema, as numbered migrations: a migration, once released, never changes.
enum SQLiteSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("1-onboarding") { db in
            try db.execute(sql: """
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
        return migrator
    }
}
