/**
 * What native mode's PostgreSQL programs (postgres, initdb, `--version` and pg_config probes)
 * are given of the caller's environment, and the time zone each run's server gets.
 *
 * They start from a clean environment: the caller's PG* variables would otherwise shape the
 * server (the postmaster reads PGCLIENTENCODING, PGDATESTYLE and PGPORT as defaults, guc.c
 * InitializeGUCOptionsFromEnvironment) or sit in /proc/<pid>/environ of every backend
 * (PGPASSWORD), and TZ would become the time zone initdb writes into a cached cluster (initdb
 * reads TZ first: src/bin/initdb/findtimezone.c select_default_timezone).
 */
import { dirname } from 'node:path';
import type { Setting } from '../../profile.js';
import { runSync } from '../../proc.js';
import type { Facts } from './facts.js';
import type { RunAs } from '../run-as.js';

/**
 * The caller's variables a PostgreSQL program is given: PATH (commands the server runs:
 * archive_command, COPY … PROGRAM) and the dynamic loader's search paths (binaries built or
 * installed where the loader's defaults do not reach). On Windows also what a process needs
 * to start and to find its temporary folder.
 */
const KEPT = ['PATH', 'LD_LIBRARY_PATH', 'DYLD_LIBRARY_PATH', 'DYLD_FALLBACK_LIBRARY_PATH'];
const KEPT_WINDOWS = ['SYSTEMROOT', 'WINDIR', 'TEMP', 'TMP', 'COMSPEC', 'PATHEXT'];

/**
 * The environment native mode starts PostgreSQL programs with: only KEPT (and on Windows
 * KEPT_WINDOWS, names compared without case) from `env`. No PG* variable, no TZ (each run's
 * time zone is set on the command line: zoneSettings), no LANG or LC_* (the cluster's locale
 * is initdb's --locale argument, and the server's messages, which the start reads, stay
 * English until its configuration sets lc_messages), no HOME, no RUN_ENV.
 * @param env the caller's environment (default: this process's)
 * @returns a new object; `env` is not changed
 */
export function serverEnv(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): Record<string, string> {
  const kept = platform === 'win32' ? [...KEPT, ...KEPT_WINDOWS] : KEPT;
  const clean: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const wanted = platform === 'win32' ? kept.includes(name.toUpperCase()) : kept.includes(name);
    if (wanted) clean[name] = value;
  }
  return clean;
}

/** Deadline of `postgres -C timezone`: 10 000 ms. */
const ZONE_CHECK_TIMEOUT_MS = 10_000;

/**
 * The time zone settings of this run's server: `timezone` and `log_timezone` set to the
 * caller's TZ when it names a zone this server accepts, as initdb would have written them
 * without the cache (initdb takes TZ when PostgreSQL accepts it, else the system's zone). None
 * when TZ is unset, empty or refused: the cluster then keeps the zone initdb found for the
 * system, which the cache holds (initdb runs without TZ: serverEnv). The user's `settings`
 * come after these and win.
 * @param check whether the server accepts a zone (zoneAccepted)
 * @returns [] or the two settings
 */
export function zoneSettings(tz: string | undefined, check: (zone: string) => boolean): Setting[] {
  if (!tz || !check(tz)) return [];
  const why = 'the TZ of this run, as initdb would have set it without the initdb cache';
  return [
    { name: 'timezone', value: tz, why },
    { name: 'log_timezone', value: tz, why },
  ];
}

/**
 * Whether `postgres` (the program's path) accepts `zone` as timezone and log_timezone: `postgres -C
 * timezone -D dataDir -c timezone=ZONE -c log_timezone=ZONE` (prints the value and exits, no server
 * started; manual: "postgres", option -C), run as `runAs` with serverEnv. The answer is kept in
 * facts (per postgres file and zone) when the server named the zone in its refusal or accepted
 * it; another failure (a configuration it refuses for its own reasons) is not kept and counts as
 * refused: the start then reports that server's own error.
 * @param dataDir a data directory with its configuration (the run's, before postgres starts)
 */
export function zoneAccepted(postgres: string, dataDir: string, zone: string, runAs: RunAs | null, facts: Facts): boolean {
  const answer = facts.get(postgres, `-C timezone=${zone}`, () => {
    try {
      // -C first: postgres then skips its refusal of root and of an administrator's token
      // (src/backend/main/main.c), which a Windows runner's job has.
      const r = runSync(postgres, ['-C', 'timezone', '-D', dataDir, '-c', `timezone=${zone}`, '-c', `log_timezone=${zone}`], {
        timeoutMs: ZONE_CHECK_TIMEOUT_MS,
        baseEnv: serverEnv(),
        cwd: dirname(dataDir), // the run folder: the run-as user may not reach this process's folder
        ...(runAs ? { uid: runAs.uid, gid: runAs.gid } : {}),
      });
      if (r.code === 0) return 'accepted';
      return /"(TimeZone|log_timezone)"/i.test(r.stderr) ? 'refused' : null;
    } catch {
      return null; // not started
    }
  });
  return answer === 'accepted';
}
