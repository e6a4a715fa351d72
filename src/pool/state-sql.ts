/**
 * The keeper's one look at the pool per round (keeper.ts): the template's fingerprint, the tickets
 * drawn, the copies ready, those to drop, and those whose taker is gone (reclaim.ts), read in one
 * round trip from the bookkeeping sql.ts installs.
 */
import { HOLD_CLASS, POOL_SCHEMA } from './sql.js';

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
   * Names of the copies taken and not given back whose taker's session has ended (no HOLD_CLASS
   * lock), not handed off, with no session connected now: reclaim.ts gives them back once they
   * stay so for RECLAIM_MS.
   */
  unheld: string[];
}

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
  ARRAY(SELECT name FROM ${POOL_SCHEMA}.copies c WHERE state = 'made' AND c.slot <= t.taken AND NOT c.handed_off
          AND NOT EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.classid = ${HOLD_CLASS}
                            AND l.objid = c.slot AND l.objsubid = 2)
          AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.datname = c.name) ORDER BY slot) AS unheld
FROM fp, t`;
