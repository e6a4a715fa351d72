/**
 * STAND-IN (issue #36): a temporary copy of bench/lib/runner-service.ts with the same exports, so
 * the benchmark's "services, tuned (2026)" rows can be written in parallel with the real file.
 * The real one reads templates/github/services.yml and builds the runner's arguments from
 * actions/runner's container code; at the merge it replaces this file as it is. Here the service
 * is hard-coded: the image, POSTGRES_PASSWORD, port 5432, PGDATA on tmpfs, /dev/shm at 1 GB, a
 * `pg_isready` health check every second, and `command:` `postgres` with the durability profile
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
    env: { POSTGRES_PASSWORD: 'postgres' },
    ports: variant === 'runner' ? ['5432'] : [],
    options: `--tmpfs ${pgdata} --shm-size 1g --health-cmd pg_isready --health-interval 1s --health-timeout 5s --health-retries 30`,
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

/** The wait step's command words for `url`: a real query through it every 50 ms, 60 s at most (stand-in). */
export function waitStepArgv(url: string): string[] {
  const script = [
    'end=$(( $(date +%s) + 60 ))',
    'until err=$(psql "$1" -X -q -t -A -c \'select 1\' 2>&1 >/dev/null); do',
    '  if [ "$(date +%s)" -ge "$end" ]; then echo "PostgreSQL did not answer within 60 s: $err" >&2; exit 1; fi',
    '  sleep 0.05',
    'done',
  ].join('\n');
  return ['bash', '-c', script, 'wait-for-postgres', url];
}
