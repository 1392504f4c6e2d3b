/// The DPoP proofs a store has seen (RFC 9449 §11.1), by their replay key, until they could
/// no longer be accepted anyway; the same migration in both dialects.
enum DPoPProofUses {
    static let sql = """
        CREATE TABLE dpop_proof_uses (replay_key TEXT PRIMARY KEY, expires_at DOUBLE PRECISION NOT NULL);
        CREATE INDEX dpop_proof_uses_expiry ON dpop_proof_uses(expires_at);
        """
}
