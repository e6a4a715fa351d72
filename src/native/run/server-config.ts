/**
 * What a native server is configured with, apart from its cluster: its settings (the durability
 * profile, the user's, this run's port, listen address and authentication files), as `-c`
 * arguments or, on Windows, lines of the run's configuration file (windows.ts), and this run's
 * pg_hba.conf and pg_ident.conf.
 */
import { join } from 'node:path';
import { isLoopback } from '../../connection.js';
import type { Config } from '../../inputs.js';
import { effectiveSettings, settingsToArgs, type Setting } from '../../profile.js';
import { hasPeerSocket } from './windows.js';

/**
 * The server's arguments: data directory, port, TCP on the publish-host address (127.0.0.1 unless
 * asked otherwise), this run's pg_hba.conf and pg_ident.conf in the data directory (a
 * configuration file that names others does not count), the durability profile with the user's
 * settings over it, and the Unix socket in the (0700) data directory.
 * @returns e.g. `['-D', dir, '-p', '5432', '-c', 'listen_addresses=127.0.0.1', …, '-c', 'fsync=off', …]`
 */
export function postgresArgs(dataDir: string, port: number, config: Pick<Config, 'settings' | 'publishHost'>): string[] {
  // runSettings begins with the port, given as -p.
  return ['-D', dataDir, '-p', String(port), ...settingsToArgs(runSettings(dataDir, port, config).slice(1))];
}

/**
 * Every setting the server gets beyond its data directory, in order: port, listen_addresses (the
 * publish-host address), this run's pg_hba.conf and pg_ident.conf in the data directory (a
 * configuration file that names others does not count), then nativeSettings. Linux and macOS
 * pass them as `-c` options (postgresArgs), Windows in the run's configuration file (windows.ts).
 */
export function runSettings(
  dataDir: string,
  port: number,
  config: Pick<Config, 'settings' | 'publishHost'>,
  platform: NodeJS.Platform = process.platform,
): Array<Pick<Setting, 'name' | 'value'>> {
  // Windows: as PostgreSQL writes a path there (src/port/path.c canonicalize_path: `/`), so that
  // the configuration file, read again, names the same file (pg_file_settings: applied).
  const path = (name: string) => (platform === 'win32' ? join(dataDir, name).replace(/\\/g, '/') : join(dataDir, name));
  return [
    { name: 'port', value: String(port) },
    { name: 'listen_addresses', value: config.publishHost },
    // This run's authentication files (place-cluster.ts), whatever the configuration files say.
    { name: 'hba_file', value: path('pg_hba.conf') },
    { name: 'ident_file', value: path('pg_ident.conf') },
    ...nativeSettings(dataDir, config, platform),
  ];
}

/**
 * The settings a native server runs with: the durability profile, the user's settings over it,
 * dynamic_shared_memory_type=mmap unless the user set it (the segments then live in PGDATA's
 * pg_dynshmem, on the RAM PGDATA is on, and go with the run folder: POSIX segments in /dev/shm
 * outlive a postmaster killed with SIGKILL; manual: "Resource Consumption"), and
 * unix_socket_directories last: the (0700) data directory, the one socket folder (the settings
 * input cannot name another: profile.ts OWNED_SETTINGS). On Windows neither: its server takes
 * `windows` only (its default), and there is no socket (empty: windows.ts hasPeerSocket).
 */
export function nativeSettings(
  dataDir: string,
  config: Pick<Config, 'settings'>,
  platform: NodeJS.Platform = process.platform,
): Setting[] {
  const settings = effectiveSettings(config.settings);
  if (!hasPeerSocket(platform)) {
    return [...settings, { name: 'unix_socket_directories', value: '', why: 'no Unix socket: the first connection is over TCP' }];
  }
  const dsm = settings.some((s) => s.name.toLowerCase() === 'dynamic_shared_memory_type');
  return [
    ...settings,
    ...(dsm
      ? []
      : [
          {
            name: 'dynamic_shared_memory_type',
            value: 'mmap',
            why: 'parallel query segments as files in PGDATA (RAM already), removed with it even after a postmaster was killed',
          },
        ]),
    {
      name: 'unix_socket_directories',
      value: dataDir,
      why: 'the bootstrap connection uses the socket in the 0700 data directory',
    },
  ];
}

/**
 * pg_hba.conf for a run (manual: "The pg_hba.conf File"). Unix-socket connections use peer
 * authentication mapped (pg_ident.conf, map `pg_tmpfs`) from the OS users that start and run the
 * server to the superuser: no other local user gets in, even where the socket folder is reachable.
 * TCP needs the password (scram-sha-256), from loopback only unless `listen` is not loopback.
 * Windows: no `local` line (no socket there).
 */
export function hbaConf(listen: string, platform: NodeJS.Platform = process.platform): string {
  return [
    '# Written by pg-tmpfs for this run.',
    // Windows has no peer authentication, and its server no socket (nativeSettings).
    ...(hasPeerSocket(platform) ? ['local all all peer map=pg_tmpfs'] : []),
    'host all all 127.0.0.1/32 scram-sha-256',
    'host all all ::1/128 scram-sha-256',
    ...(listen.split(',').every((a) => isLoopback(a.trim())) ? [] : ['host all all all scram-sha-256']),
    '',
  ].join('\n');
}

/** pg_ident.conf for a run: each OS user in `osUsers` may connect over the socket as `dbUser`. */
export function identConf(osUsers: readonly string[], dbUser: string): string {
  return ['# Written by pg-tmpfs for this run.', ...[...new Set(osUsers)].map((u) => `pg_tmpfs "${u}" "${dbUser}"`), ''].join(
    '\n',
  );
}

/**
 * pg_hba.conf for a run until its first connection, where that connection needs a password
 * (Windows: the cluster's bootstrap password): TCP from this host only (`samehost`: its own
 * addresses, loopback among them), whatever publish-host allows after. The first connection
 * writes hbaConf then and reloads it (bootstrap.ts), so no other host ever gets to try the
 * bootstrap password.
 */
export function bootstrapHbaConf(): string {
  return ['# Written by pg-tmpfs for this run, until its first connection.', 'host all all samehost scram-sha-256', ''].join(
    '\n',
  );
}
