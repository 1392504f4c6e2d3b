/// The migration both dialects run as written: SQLite's "4-bindings", PostgreSQL's "2-bindings".
///
/// It adds the hash of the cookie that binds a confirmed sign-in to its browser, and makes an
/// IdP account `(environment, issuer, subject)` one person. Where two users were bound to one
/// account already, the earliest keeps the binding and the others bind anew at their next
/// sign-in, where they are refused as `identity_in_use`.
enum BindingsMigration {
    static let sql = """
        ALTER TABLE sessions ADD COLUMN browser_binding text;
        UPDATE users SET idp_issuer = NULL, idp_subject = NULL WHERE id IN (
            SELECT id FROM (
                SELECT id, ROW_NUMBER() OVER (
                    PARTITION BY environment_id, idp_issuer, idp_subject ORDER BY signed_in_at, created_at, id
                ) AS n
                FROM users WHERE idp_subject IS NOT NULL AND idp_issuer IS NOT NULL
            ) AS ranked WHERE n > 1
        );
        CREATE UNIQUE INDEX users_identity ON users(environment_id, idp_issuer, idp_subject) WHERE idp_subject IS NOT NULL;
        CREATE INDEX users_subject ON users(environment_id, idp_subject) WHERE idp_subject IS NOT NULL
        """
}
