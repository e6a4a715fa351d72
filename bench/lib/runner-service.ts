/**
 * STAND-IN (issue #36): a temporary copy of bench/lib/runner-service.ts with the same exports, so
 * the benchmark's "services, tuned (2026)" rows can be written in parallel with the real file.
 * The real one reads templates/github/services.yaml and builds the runner's arguments from
 * actions/runner's container code; at the merge it replaces this file as it is. Here the service
 * is hard-coded as the template's draft has it: the image, POSTGRES_USER/PASSWORD/DB and
 * POSTGRES_INITDB_ARGS, port 5432, PGDATA on tmpfs, /dev/shm at 512 MB, a `pg_isready -h
 * 127.0.0.1` health check every second, and `command:` `postgres` with the durability profile
 * (src/profile.ts). Use it only through these exports.
 */
import { DURABILITY_SETTINGS, settingsToArgs } from '../../src/profile.js';

/** One service of a workflow's `services:` block, as the runner reads it. */
export interface WorkflowService {
  image: string;
  env: Record<string, string>;
  ports: string[];
  options: string;
  command?: string;
  entrypoint?: string;
  volumes: string[];
}

/**
 * The services block's PostgreSQL service (stand-in: hard-coded, no YAML).
 * @param variant 'runner': the job on the runner (port 5432 published); 'container': a `container:` job (no port)
 * @param major picks the tmpfs path: PGDATA's folder, /var/lib/postgresql/data up to 17, /var/lib/postgresql from 18
 * @param image replaces the template's image
 */
export function servicesTemplate(variant: 'runner' | 'container', major: number, image: string): WorkflowService {
  const pgdata = major >= 18 ? '/var/lib/postgresql' : '/var/lib/postgresql/data';
  return {
    image,
    env: { POSTGRES_USER: 'postgres', POSTGRES_PASSWORD: 'postgres', POSTGRES_DB: 'postgres', POSTGRES_INITDB_ARGS: '--nosync' },
    ports: variant === 'runner' ? ['5432'] : [],
    options: `--tmpfs ${pgdata} --shm-size 512m --health-cmd "pg_isready -h 127.0.0.1" --health-interval 1s --health-timeout 5s --health-retries 60`,
    command: ['postgres', ...settingsToArgs(DURABILITY_SETTINGS)].join(' '),
    volumes: [],
  };
}

/** Splits an options string at blanks, double quotes grouping (stand-in: no escapes). */
function words(s: string): string[] {
  return [...s.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? '');
}

/**
 * `docker create` arguments (after 'docker') the runner builds for this service, in the order of
 * actions/runner's DockerCommandManager.DockerCreate: name, label, network, alias, `-p` per port,
 * the options, `-e` per variable, GITHUB_ACTIONS and CI, volumes, entrypoint, image, command.
 */
export function runnerCreateArgs(
  svc: WorkflowService,
  opts: { name: string; network: string; alias: string; label: string },
): string[] {
  return [
    'create',
    '--name',
    opts.name,
    '--label',
    opts.label,
    '--network',
    opts.network,
    '--network-alias',
    opts.alias,
    ...svc.ports.flatMap((p) => ['-p', p]),
    ...words(svc.options),
    ...Object.entries(svc.env).flatMap(([k, v]) => ['-e', v === '' ? k : `${k}=${v}`]),
    '-e',
    'GITHUB_ACTIONS=true',
    ...('CI' in svc.env ? [] : ['-e', 'CI=true']),
    ...svc.volumes.flatMap((v) => ['-v', v]),
    ...(svc.entrypoint ? ['--entrypoint', svc.entrypoint] : []),
    svc.image,
    ...words(svc.command ?? ''),
  ];
}

/**
 * The wait step's command words for `url` (stand-in: the template draft's script, run as the
 * runner runs a `shell: bash` step): `SELECT 1` through it every 100 ms, 60 s at most, then one
 * line about the server, and DATABASE_URL appended to the file GITHUB_ENV names (the caller's
 * environment must set it).
 */
export function waitStepArgv(url: string): string[] {
  const script = [
    'deadline=$((SECONDS + 60)) tries=1',
    `until err=$(PGCONNECT_TIMEOUT=2 psql "$DATABASE_URL" -X -q -t -A -c 'SELECT 1' 2>&1 >/dev/null); do`,
    '  if [ "$SECONDS" -ge "$deadline" ]; then',
    '    echo "::error::PostgreSQL did not answer SELECT 1 within 60 s ($tries tries): $err"',
    '    exit 1',
    '  fi',
    '  tries=$((tries + 1))',
    '  sleep 0.1',
    'done',
    `psql "$DATABASE_URL" -X -q -t -A -c "SELECT 'PostgreSQL ' || current_setting('server_version') || ' answers (try $tries)'"`,
    'echo "DATABASE_URL=$DATABASE_URL" >> "$GITHUB_ENV"',
  ].join('\n');
  return ['env', `DATABASE_URL=${url}`, 'bash', '--noprofile', '--norc', '-eo', 'pipefail', '-c', script];
}
