-- The floor of a registration: the seven rows `POST /register_device` writes for a newcomer
-- (person, personal realm, audit entry, lifecycle event, device, session, onboarding count),
-- in one transaction of one statement (one round trip, as few as PostgreSQL allows), with
-- Fieldpass's own schema and indexes (the database is migrated by `fieldpass migrate`) and
-- values of the lengths Fieldpass writes. Run by `pgbench -M prepared -f` (write_limit.py),
-- which compares PostgreSQL's CPU per registration with its CPU per transaction of this.
\set n random(1, 9000000000000000000)
WITH ids AS (
    SELECT md5(:n || 'user')::uuid::text AS person, md5(:n || 'device')::uuid::text AS device,
           'rows-' || :n || '@bench.example' AS email, extract(epoch FROM now()) AS at
), person AS (
    INSERT INTO users (id, environment_id, email, role, created_at)
    SELECT person, 'rows', email, 'worker', at FROM ids RETURNING id
), realm AS (
    INSERT INTO realms (path, environment_id, user_id, created_at, writer_xid, written)
    SELECT '/users/' || id, 'rows', id, (SELECT at FROM ids), pg_current_xact_id(), nextval('feed_writes') FROM person
), audit AS (
    INSERT INTO audit_log (environment_id, actor, action, target, before, after, at)
    SELECT 'rows', 'device', 'user.created', 'user:' || person, NULL, '{"email":"' || email || '","role":"worker"}', at FROM ids
), announced AS (
    INSERT INTO lifecycle_events (environment_id, body, at, writer_xid, written)
    SELECT 'rows', '{"action":"user.created","actor":"device","after":{"email":"' || email
           || '","role":"worker"},"type":"user.created","user_id":"' || person || '"}', at, pg_current_xact_id(), nextval('feed_writes')
    FROM ids
), device AS (
    INSERT INTO devices (id, user_id, name, platform, install_id, created_at, last_seen_at)
    SELECT ids.device, person.id, 'Bench phone', 'android', NULL, at, at FROM ids, person RETURNING id
), counted AS (
    INSERT INTO onboarding_outcomes (environment_id, outcome, at) SELECT 'rows', 'registered', at FROM ids
)
INSERT INTO sessions (id, user_id, device_id, environment_id, email, state, nonce, code_verifier, user_code, login_id,
                      csrf_token, status, created_at, expires_at, app_redirect_uri, app_state, dpop_jkt)
SELECT md5(:n || 'session')::uuid::text, person.id, device.id, 'rows', email, md5(:n || 'state') || md5(:n || 's2'),
       md5(:n || 'nonce') || md5(:n || 'n2'), md5(:n || 'verifier') || md5(:n || 'v2'), 'ABCD-EFGH',
       md5(:n || 'login') || md5(:n || 'l2'), md5(:n || 'csrf') || md5(:n || 'c2'), 'registered', at, at + 600, NULL, NULL, NULL
FROM ids, person, device;
