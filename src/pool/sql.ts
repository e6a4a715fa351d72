/**
 * The pool's SQL side (issue #37): what a test calls on the maintenance database (`postgres`) to
 * take a ready copy of the template and give it back, and the bookkeeping the keeper
 * (keeper.ts) fills. Every PostgreSQL client can call a function, so every language takes a copy
 * with the client it already holds: `SELECT pgtmpfs.take()`, `SELECT pgtmpfs.give_back($1)`.
 *
 * Handing out is by ticket, not by row lock: take() draws `nextval('pgtmpfs.tickets')`, which no
 * rollback undoes (manual: Sequence Manipulation Functions), and ticket n gets the copy the keeper
 * numbered n. So two takers never get the same copy, and a copy taken inside a transaction that
 * is rolled back (psycopg's default: not autocommit) is never handed out again: its ticket is
 * spent. The keeper numbers a copy only after its CREATE DATABASE has committed, and a ticket is
 * drawn only for the copy at the head of the queue, made and current (looked at and drawn under
 * the session-level advisory lock DRAW_LOCK_KEY, which rollbacks do not touch either). So no
 * ticket reaches a copy half made or stale, and a taker that gives up never holds a ticket:
 * however many takes time out, no copy is made for nobody (issue #43). The copy's row then records
 * its holder (the taking session's pid and start, its role; or handed off), which a rollback
 * undoes: the ticket stays spent, and a copy no session holds or uses goes back to the pool
 * (reclaim.ts). The keeper touches a taken row only with SKIP LOCKED, so a taker's open
 * transaction never stalls it.
 * Stale copies at the head (made before the template changed) are retired by the keeper
 * (retire_stale: their tickets spent, marked returned, dropped).
 *
 * A copy is current while the template has had no session since it was made: the template's
 * fingerprint (pgtmpfs.fingerprint) is its OID, its session count (pg_stat_database.sessions,
 * which counts client sessions only, PostgreSQL 14+) and its statistics reset time, or NULL while
 * a client session is connected to it. PostgreSQL 15+'s statistics in shared memory are flushed
 * by an ending session before it leaves pg_stat_activity (before_shmem_exit runs before
 * on_shmem_exit), so no change slips between the two. Autovacuum does not count as a session.
 */

/** The schema (PostgreSQL reserves the `pg_` prefix for its own schemas, so not `pg_tmpfs`). */
export const POOL_SCHEMA = 'pgtmpfs';

/** The channel take() and give_back() notify, which the keeper listens on. */
export const POOL_CHANNEL = 'pgtmpfs_pool';

/**
 * The session-level advisory lock the keeper holds while it runs (pg_advisory_lock(key), one
 * bigint): take() looks whether it is held, and fails at once when it is not.
 */
export const KEEPER_LOCK_KEY = 7_064_745_317_537_617n;

/**
 * The session-level advisory lock take() holds for the moment it looks whether a numbered copy
 * waits and draws its ticket (pg_try_advisory_lock(key), one bigint): draws are one at a time, so
 * a ticket never outruns the copies made.
 */
export const DRAW_LOCK_KEY = 7_064_745_317_537_618n;

/** SQLSTATE of take()'s own errors: 55000 object_not_in_prerequisite_state. */
export const POOL_ERRCODE = '55000';

/**
 * The statements that install the pool in the maintenance database (idempotent: the tables are
 * emptied, the functions replaced). Run as one multi-statement query by the superuser.
 * `copies`: one row per copy the keeper made (UNLOGGED: the server is a throwaway one);
 * `keeper`: one row naming the template, the pool's size and the keeper's last problem.
 */
export const INSTALL_SQL = `
CREATE SCHEMA IF NOT EXISTS ${POOL_SCHEMA};
CREATE UNLOGGED TABLE IF NOT EXISTS ${POOL_SCHEMA}.copies (
  slot bigint PRIMARY KEY,
  name text NOT NULL UNIQUE,
  state text NOT NULL DEFAULT 'made' CHECK (state IN ('made', 'returned')),
  fingerprint text NOT NULL,
  bytes bigint NOT NULL,
  made_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  -- The taker (take()): its role, and the session that holds the copy (pid and start: a pid is
  -- reused), or handed_off when the name outlives that session (db take). NULL: not taken, or
  -- taken in a transaction that was rolled back.
  taken_by oid,
  holder_pid integer,
  holder_start timestamptz,
  handed_off boolean NOT NULL DEFAULT false
);
CREATE UNLOGGED TABLE IF NOT EXISTS ${POOL_SCHEMA}.keeper (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  template text NOT NULL,
  size integer NOT NULL,
  made bigint NOT NULL DEFAULT 0,
  note text,
  rebuilt_at timestamptz,
  reclaimed integer NOT NULL DEFAULT 0
);
CREATE SEQUENCE IF NOT EXISTS ${POOL_SCHEMA}.tickets;
TRUNCATE ${POOL_SCHEMA}.copies, ${POOL_SCHEMA}.keeper;
ALTER SEQUENCE ${POOL_SCHEMA}.tickets RESTART;
-- Every role that can connect to postgres may take and give back (issue #43): the functions run
-- as their owner (SECURITY DEFINER, search_path fixed), the tables stay the owner's.
GRANT USAGE ON SCHEMA ${POOL_SCHEMA} TO PUBLIC;
-- A taker that dies while waiting in take() ends its wait within a second (Linux), not at its
-- deadline: the server looks whether the client is still there (read at session start, hence here).
-- Where the server cannot look (Windows, seen under Wine) it refuses any value but 0: no look there.
DO $$ BEGIN
  ALTER DATABASE postgres SET client_connection_check_interval = 1000;
EXCEPTION WHEN invalid_parameter_value THEN NULL;
END $$;

CREATE OR REPLACE FUNCTION ${POOL_SCHEMA}.fingerprint(template text) RETURNS text
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
  fp text;
BEGIN
  PERFORM pg_stat_clear_snapshot();
  IF EXISTS (SELECT 1 FROM pg_stat_activity WHERE datname = template AND backend_type = 'client backend') THEN
    RETURN NULL;
  END IF;
  SELECT d.oid::text || ':' || coalesce(s.sessions, 0)::text || ':' || coalesce(s.stats_reset::text, '')
    INTO fp
    FROM pg_database d LEFT JOIN pg_stat_database s ON s.datid = d.oid
    WHERE d.datname = template;
  RETURN fp;
END
$fn$;

CREATE OR REPLACE FUNCTION ${POOL_SCHEMA}.keeper_running() RETURNS boolean
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
BEGIN
  IF pg_try_advisory_lock_shared(${KEEPER_LOCK_KEY}) THEN
    PERFORM pg_advisory_unlock_shared(${KEEPER_LOCK_KEY});
    RETURN false;
  END IF;
  RETURN true;
END
$fn$;

-- Whether a copy may be handed out: it exists and no client session has been on it since it was
-- made (pg_stat_database.sessions, as for the template's fingerprint; and none now).
CREATE OR REPLACE FUNCTION ${POOL_SCHEMA}.pristine(copy text) RETURNS boolean
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
BEGIN
  PERFORM pg_stat_clear_snapshot();
  RETURN EXISTS (SELECT 1 FROM pg_database WHERE datname = copy)
    AND NOT EXISTS (SELECT 1 FROM pg_stat_activity WHERE datname = copy AND backend_type = 'client backend')
    AND coalesce((SELECT sessions FROM pg_stat_database WHERE datname = copy), 0) = 0;
END
$fn$;

-- Releases DRAW_LOCK_KEY if this session holds it, however many times: a cancel that came
-- between taking and releasing it must not leave every other taker without draws.
CREATE OR REPLACE FUNCTION ${POOL_SCHEMA}.release_draw() RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
BEGIN
  WHILE EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()
      AND classid = ${DRAW_LOCK_KEY >> 32n} AND objid = ${DRAW_LOCK_KEY & 0xffffffffn} AND objsubid = 1) LOOP
    PERFORM pg_advisory_unlock(${DRAW_LOCK_KEY});
  END LOOP;
END
$fn$;

-- The keeper's: spends the tickets of the copies at the head of the queue that are stale (made
-- before the template changed) or not pristine (used or dropped by someone), marking them returned
-- to be dropped, so takers never meet them. Under
-- DRAW_LOCK_KEY, as draws are; returns how many, or NULL when the lock is busy (try again).
CREATE OR REPLACE FUNCTION ${POOL_SCHEMA}.retire_stale(template text) RETURNS integer
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
  fp text := ${POOL_SCHEMA}.fingerprint(template);
  c ${POOL_SCHEMA}.copies%ROWTYPE;
  n integer := 0;
BEGIN
  IF fp IS NULL THEN
    RETURN 0;
  END IF;
  BEGIN
    IF NOT pg_try_advisory_lock(${DRAW_LOCK_KEY}) THEN
      RETURN NULL;
    END IF;
    LOOP
      SELECT * INTO c FROM ${POOL_SCHEMA}.copies
        WHERE slot = (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM ${POOL_SCHEMA}.tickets) + 1;
      EXIT WHEN NOT FOUND OR (c.fingerprint = fp AND ${POOL_SCHEMA}.pristine(c.name));
      PERFORM nextval('${POOL_SCHEMA}.tickets');
      UPDATE ${POOL_SCHEMA}.copies SET state = 'returned' WHERE slot = c.slot;
      n := n + 1;
    END LOOP;
    PERFORM pg_advisory_unlock(${DRAW_LOCK_KEY});
  EXCEPTION WHEN query_canceled OR others THEN
    PERFORM ${POOL_SCHEMA}.release_draw();
    RAISE;
  END;
  RETURN n;
END
$fn$;

-- take(timeout_ms) before hand_off (an older install's): replaced, never overloaded.
DROP FUNCTION IF EXISTS ${POOL_SCHEMA}.take(integer);
CREATE OR REPLACE FUNCTION ${POOL_SCHEMA}.take(timeout_ms integer DEFAULT 10000, hand_off boolean DEFAULT false) RETURNS text
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
  k ${POOL_SCHEMA}.keeper%ROWTYPE;
  ticket bigint;
  c ${POOL_SCHEMA}.copies%ROWTYPE;
  pause float8 := 0.0005;
  deadline timestamptz;
BEGIN
  IF timeout_ms IS NULL OR timeout_ms < 0 THEN
    RAISE EXCEPTION 'pg-tmpfs pool: take(%) is not a wait: give the longest wait in ms, 0 or more', coalesce(timeout_ms::text, 'NULL')
      USING ERRCODE = '${POOL_ERRCODE}', HINT = 'Call pgtmpfs.take() (10 000 ms) or pgtmpfs.take(30000)';
  END IF;
  IF current_setting('transaction_read_only') = 'on' THEN
    RAISE EXCEPTION 'pg-tmpfs pool: take() draws a ticket (nextval), which a read-only transaction cannot'
      USING ERRCODE = '${POOL_ERRCODE}', HINT = 'Call pgtmpfs.take() outside the read-only transaction (and without default_transaction_read_only)';
  END IF;
  PERFORM ${POOL_SCHEMA}.release_draw();
  deadline := clock_timestamp() + make_interval(secs => timeout_ms / 1000.0);
  LOOP
    SELECT * INTO k FROM ${POOL_SCHEMA}.keeper;
    EXIT WHEN FOUND;
    -- The schema is here, so a pool was installed: its UNLOGGED bookkeeping was emptied by the
    -- restart after a crash, and the keeper rebuilds it once it has reconnected (keeper.ts).
    IF clock_timestamp() >= deadline OR current_setting('transaction_isolation') <> 'read committed' THEN
      RAISE EXCEPTION 'pg-tmpfs pool: the pool''s bookkeeping was emptied when the server restarted after a crash (a server process ended abnormally), and its keeper has not rebuilt it within % ms', timeout_ms
        USING ERRCODE = '${POOL_ERRCODE}',
              HINT = 'Wait longer (pgtmpfs.take(timeout_ms), outside a transaction); if it stays so, the keeper is gone: pg-tmpfs down, then up with --pool';
    END IF;
    PERFORM pg_sleep(0.01);
  END LOOP;
  LOOP
    IF NOT ${POOL_SCHEMA}.keeper_running() THEN
      SELECT note INTO k.note FROM ${POOL_SCHEMA}.keeper;
      RAISE EXCEPTION 'pg-tmpfs pool: the keeper of the pool of % is not running, so no copy is made%', k.template,
        coalesce(' (its last problem: ' || k.note || ')', '')
        USING ERRCODE = '${POOL_ERRCODE}',
              HINT = 'Restart the server (pg-tmpfs down, then up with --pool), or make a copy without the pool: pg-tmpfs db create';
    END IF;
    -- A ticket only for the copy at the head of the queue, made and current, drawn under
    -- DRAW_LOCK_KEY (one draw at a time): a taker that waits holds no ticket, so no copy is ever
    -- made for a taker that gave up.
    BEGIN
      IF pg_try_advisory_lock(${DRAW_LOCK_KEY}) THEN
        SELECT * INTO c FROM ${POOL_SCHEMA}.copies
          WHERE slot = (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM ${POOL_SCHEMA}.tickets) + 1
            AND state = 'made';
        IF FOUND AND c.fingerprint = ${POOL_SCHEMA}.fingerprint(k.template) AND ${POOL_SCHEMA}.pristine(c.name) THEN
          ticket := nextval('${POOL_SCHEMA}.tickets');
          PERFORM pg_notify('${POOL_CHANNEL}', 'take');
        END IF;
        PERFORM pg_advisory_unlock(${DRAW_LOCK_KEY});
      END IF;
    EXCEPTION WHEN query_canceled OR others THEN
      PERFORM ${POOL_SCHEMA}.release_draw();
      RAISE;
    END;
    IF ticket = c.slot THEN
      -- Its holder: this session until give_back or its end (then reclaim.ts gives it back once
      -- unused), or nobody's session when handed off (db take: the name outlives the session).
      -- Only the taker's role, or a superuser, may give it back. A rollback undoes this row's
      -- change, never the ticket.
      UPDATE ${POOL_SCHEMA}.copies
        SET taken_by = (SELECT oid FROM pg_roles WHERE rolname = session_user),
            holder_pid = CASE WHEN hand_off THEN NULL ELSE pg_backend_pid() END,
            holder_start = CASE WHEN hand_off THEN NULL ELSE (SELECT backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid()) END,
            handed_off = coalesce(hand_off, false)
        WHERE slot = c.slot;
      RETURN c.name;
    END IF;
    ticket := NULL;
    IF current_setting('transaction_isolation') <> 'read committed' THEN
      -- One snapshot for the whole transaction: the copy the keeper makes next would never be seen.
      RAISE EXCEPTION 'pg-tmpfs pool: no ready copy of % at once, and take() cannot wait for one inside a % transaction (only under READ COMMITTED)', k.template, upper(current_setting('transaction_isolation'))
        USING ERRCODE = '${POOL_ERRCODE}', HINT = 'Call pgtmpfs.take() outside a transaction (autocommit) or in a READ COMMITTED one';
    END IF;
    IF clock_timestamp() >= deadline THEN
      SELECT note INTO k.note FROM ${POOL_SCHEMA}.keeper;
      RAISE EXCEPTION 'pg-tmpfs pool: no ready copy of % within % ms (pool of %: every copy taken, and the keeper has not made the next)%', k.template, timeout_ms, k.size,
        CASE WHEN NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = k.template)
          THEN '; the template no longer exists (dropped or renamed), so no copy of it can be made'
          WHEN ${POOL_SCHEMA}.fingerprint(k.template) IS NULL
          THEN '; a session is connected to the template, so no copy of it can be made: close it'
          WHEN EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND pid <> pg_backend_pid()
              AND classid = ${DRAW_LOCK_KEY >> 32n} AND objid = ${DRAW_LOCK_KEY & 0xffffffffn} AND objsubid = 1)
          THEN format('; session %s holds the pool''s draw lock (a take cancelled mid-draw): call pgtmpfs.take() in it once, or end it',
            (SELECT min(pid) FROM pg_locks WHERE locktype = 'advisory' AND pid <> pg_backend_pid()
              AND classid = ${DRAW_LOCK_KEY >> 32n} AND objid = ${DRAW_LOCK_KEY & 0xffffffffn} AND objsubid = 1))
          ELSE coalesce('; the keeper''s last problem: ' || k.note, '') END
        USING ERRCODE = '${POOL_ERRCODE}',
              HINT = 'Give back the copies you are done with (pgtmpfs.give_back), raise the pool input, or wait longer: pgtmpfs.take(timeout_ms)';
    END IF;
    PERFORM pg_sleep(pause);
    pause := least(pause * 2, 0.01);
  END LOOP;
END
$fn$;

CREATE OR REPLACE FUNCTION ${POOL_SCHEMA}.give_back(name text) RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
  k ${POOL_SCHEMA}.keeper%ROWTYPE;
  r ${POOL_SCHEMA}.copies%ROWTYPE;
BEGIN
  IF coalesce(name, '') = '' THEN
    RAISE EXCEPTION 'pg-tmpfs pool: give_back(%) names no copy', coalesce(quote_literal(name), 'NULL')
      USING ERRCODE = '${POOL_ERRCODE}', HINT = 'Give back the name pgtmpfs.take() returned';
  END IF;
  -- The row as its take committed it: FOR UPDATE waits for a take still open on it (its holder
  -- and role not yet visible), so no role gives back a copy whose taker's role it cannot see yet.
  SELECT * INTO r FROM ${POOL_SCHEMA}.copies c WHERE c.name = give_back.name FOR UPDATE;
  IF FOUND AND r.state = 'made' AND r.taken_by IS NOT NULL AND NOT pg_has_role(session_user, r.taken_by, 'MEMBER') THEN
    RAISE EXCEPTION 'pg-tmpfs pool: % was taken by role %, and only that role or a superuser may give it back (this session is role %)', name,
      r.taken_by::regrole, session_user
      USING ERRCODE = '42501', HINT = 'Give back the copies your own role took';
  END IF;
  UPDATE ${POOL_SCHEMA}.copies c SET state = 'returned'
    WHERE c.slot = r.slot AND c.state = 'made'
      AND c.slot <= (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM ${POOL_SCHEMA}.tickets);
  IF NOT FOUND THEN
    SELECT * INTO k FROM ${POOL_SCHEMA}.keeper;
    -- Taken before a crash restart emptied the bookkeeping: nothing to give back, it goes with the server.
    IF k.rebuilt_at IS NOT NULL AND starts_with(name, k.template || '_pool_')
        AND NOT EXISTS (SELECT 1 FROM ${POOL_SCHEMA}.copies c WHERE c.name = give_back.name)
        AND EXISTS (SELECT 1 FROM pg_database WHERE datname = give_back.name) THEN
      RAISE NOTICE 'pg-tmpfs pool: % was taken before the server restarted after a crash (%), which emptied the pool''s bookkeeping; it stays until the server stops', name, k.rebuilt_at;
      RETURN;
    END IF;
    RAISE EXCEPTION 'pg-tmpfs pool: % is not a copy taken from the pool (or was given back already)', name
      USING ERRCODE = '${POOL_ERRCODE}', HINT = 'Give back the name pgtmpfs.take() returned, once';
  END IF;
  PERFORM pg_notify('${POOL_CHANNEL}', 'give_back');
END
$fn$;
`;
