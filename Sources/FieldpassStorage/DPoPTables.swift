/// DPoP's tables, the same migration and statements in both dialects: the proofs a store
/// has seen (RFC 9449 §11.1), by their replay key, until they could no longer be accepted
/// anyway; and the key a registration proved, which its session and refresh tokens keep.
enum DPoPTables {
    static let sql = """
        CREATE TABLE dpop_proof_uses (replay_key TEXT PRIMARY KEY, expires_at DOUBLE PRECISION NOT NULL);
        CREATE INDEX dpop_proof_uses_expiry ON dpop_proof_uses(expires_at);
        ALTER TABLE sessions ADD COLUMN dpop_jkt TEXT;
        ALTER TABLE refresh_tokens ADD COLUMN dpop_jkt TEXT;
        """

    /// Records a use, answering a row only when the key was not seen before: key, expiry.
    static let recordProof = SharedStatement { value in
        "INSERT INTO dpop_proof_uses (replay_key, expires_at) VALUES (\(value(1)), \(value(2))) ON CONFLICT DO NOTHING RETURNING 1"
    }

    /// Forgets the proofs whose time is up: time.
    static let forgetProofs = SharedStatement { value in "DELETE FROM dpop_proof_uses WHERE expires_at <= \(value(1))" }
}
