/**
 * The keeper's one look at the pool per round (keeper.ts): the template's fingerprint, the tickets
 * drawn, the copies ready, those to drop, and those whose taker is gone (reclaim.ts), read in one
 * round trip from the bookkeeping sql.ts installs.
 */
import { POOL_SCHEMA } from './sql.js';

/** The keeper's view of the pool, read in one round trip (SELECT_STATE). */
export interface PoolState {
  /** The template's fingerprint now; null while a client session is connected to it, or when it is gone. */
  fingerprint: string | null;
  /** Whether a database of the template's name exists (false: dropped or renamed since the start). */
  templateExists: boolean;
  /** Tickets drawn so far: copies with a slot up to this are taken. */
  taken: number;
  /** Current copies not yet taken: slot above `taken`, made at `fingerprint`. */
  fresh: number;
  /** Copies not yet taken, current or not (stale ones wait for the keeper to retire them). */
  untaken: number;
  /** Whether the copy at the head of the queue may be handed out (current and pristine); null when there is none. */
  headReady: boolean | null;
  /** Names of the copies given back (or skipped as stale) that no session is connected to, to drop. */
  returned: string[];
  /**
   * Names of the copies taken and not given back that no session holds (UNHELD: the taking session
   * has ended, or the take was rolled back), not handed off, with no session connected now:
   * reclaim.ts gives them back once they stay so for its wait. A row a taker's open transaction
   * has locked (a take not yet committed shows no holder) is left out (SKIP LOCKED), so its wait
   * starts only once that transaction has ended. The keeper runs this in autocommit: the row
   * locks end with the statement (the table is UNLOGGED: they write no WAL).
   */
  unheld: string[];
}

/**
 * Whether copy row `c` is held by nobody and used by nobody: in state made, not handed off, its
 * holder session gone (pid and start: a pid is reused) or never recorded (a take rolled back), and
 * no session connected to it. A condition on `c` (a row of pgtmpfs.copies).
 */
export const UNHELD = `c.state = 'made' AND NOT c.handed_off
  AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = c.holder_pid AND a.backend_start = c.holder_start)
  AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.datname = c.name)`;

/**
 * The keeper's reclaim of one copy ($1, its name): given back when still taken and UNHELD; a row
 * a taker's open transaction has locked (a take or give_back not yet committed) is skipped, never
 * waited for. Row: the count given back (0 or 1), added to pgtmpfs.keeper.reclaimed.
 */
export const RECLAIM = `
WITH pick AS (
  SELECT c.slot FROM ${POOL_SCHEMA}.copies c
   WHERE c.name = $1 AND ${UNHELD}
     AND c.slot <= (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM ${POOL_SCHEMA}.tickets)
   FOR UPDATE SKIP LOCKED),
r AS (UPDATE ${POOL_SCHEMA}.copies c SET state = 'returned' FROM pick WHERE c.slot = pick.slot RETURNING 1)
UPDATE ${POOL_SCHEMA}.keeper SET reclaimed = reclaimed + (SELECT count(*) FROM r)`;

/** One round trip of the keeper's loop: $1 = the template's name. Row: PoolState's fields. */
export const SELECT_STATE = `
WITH fp AS (SELECT ${POOL_SCHEMA}.fingerprint($1) AS f),
     t AS (SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS taken FROM ${POOL_SCHEMA}.tickets)
SELECT fp.f AS fingerprint, EXISTS (SELECT 1 FROM pg_database WHERE datname = $1) AS "templateExists", t.taken::int AS taken,
  (SELECT count(*)::int FROM ${POOL_SCHEMA}.copies c WHERE c.slot > t.taken AND c.fingerprint = fp.f) AS fresh,
  (SELECT count(*)::int FROM ${POOL_SCHEMA}.copies c WHERE c.slot > t.taken) AS untaken,
  (SELECT c.fingerprint = fp.f AND ${POOL_SCHEMA}.pristine(c.name) FROM ${POOL_SCHEMA}.copies c WHERE c.slot = t.taken + 1) AS "headReady",
  ARRAY(SELECT name FROM ${POOL_SCHEMA}.copies c WHERE state = 'returned'
          AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.datname = c.name) ORDER BY slot) AS returned,
  ARRAY(SELECT name FROM ${POOL_SCHEMA}.copies c WHERE c.slot <= t.taken AND ${UNHELD} ORDER BY slot FOR UPDATE SKIP LOCKED) AS unheld
FROM fp, t`;
