/**
 * The GitHub services template (templates/github/services.yaml) as GitHub's runner runs it: its
 * service read as the runner reads a service, the `docker create` arguments the runner builds
 * from it, and the template's wait step as a command. The runner's code, in actions/runner (the
 * mirror's HEAD 258d6c857; service `command`/`entrypoint` since PR #4276, 20111cbfd):
 * - src/Runner.Worker/Container/ContainerInfo.cs, ContainerInfo(hostContext, container,
 *   isJobContainer, networkAlias): `image`, `options` (ContainerCreateOptions, one string),
 *   `entrypoint` (ContainerEntryPoint), `command` (ContainerEntryPointArgs, one string), `env`,
 *   `ports` (UserPortMappings) and `volumes` (MountVolume) of a service; the service's key is its
 *   network alias;
 * - src/Runner.Worker/Container/DockerCommandManager.cs, DockerCreate: the `docker create` text
 *   (runnerCreateArgs);
 * - src/Runner.Worker/ContainerOperationProvider.cs, StartContainersAsync (network
 *   github_network_<guid> made by DockerNetworkCreate with the runner's label, then per service
 *   StartContainerAsync: pull, DockerCreate, DockerStart, DockerPort for job.services.<name>.ports)
 *   and RunContainersHealthcheck/ContainerHealthcheck (testkit/runner-args.ts runnerHealthArgs).
 * Left out: the proxy variables the runner adds when it runs behind a proxy (UpdateWebProxyEnv),
 * and registry credentials.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { processArguments, runnerEscapedOption, runnerVolumeOption } from './runner-args.js';

/** The template, from the repository root. */
export const SERVICES_TEMPLATE = join(resolve(import.meta.dirname, '..'), 'templates', 'github', 'services.yaml');

/** The template's job id of each variant: steps on the runner, or in a `container:`. */
export const TEMPLATE_JOBS = { runner: 'on-runner', container: 'in-container' } as const;

/** A service as the runner reads it (one entry of `services:`, as JobContainer holds it). */
export interface WorkflowService {
  image: string;
  env: Record<string, string>;
  ports: string[];
  options: string;
  command?: string;
  entrypoint?: string;
  volumes: string[];
}

/** A step of the template, as much of it as the tests read. */
export interface TemplateStep {
  name?: string;
  shell?: string;
  run?: string;
  uses?: string;
  env?: Record<string, string>;
  'timeout-minutes'?: number;
}

/** A job of the template, as much of it as the tests read. */
export interface TemplateJob {
  container?: string;
  services: Record<string, Record<string, unknown>>;
  steps: TemplateStep[];
}

/** The template parsed (YAML 1.2, the `yaml` library): its jobs by id. */
export function templateJobs(path = SERVICES_TEMPLATE): Record<string, TemplateJob> {
  return (parse(readFileSync(path, 'utf8')) as { jobs: Record<string, TemplateJob> }).jobs;
}

/** The major of an image tag (`postgres:18` → 18), NaN when the tag does not start with one. */
export function imageMajor(image: string): number {
  return Number(/:(\d+)/.exec(image)?.[1] ?? NaN);
}

/** The `--tmpfs` paths of an options string. */
export function tmpfsPaths(options: string): string[] {
  const words = processArguments(options);
  return words.flatMap((w, i) => (w === '--tmpfs' && words[i + 1] ? [words[i + 1]!] : []));
}

/** The job's one service `postgres`, with the runner's string view of its scalars. */
function readService(job: TemplateJob): WorkflowService {
  const s = job.services.postgres;
  if (!s) throw new Error('the template job has no service named postgres');
  const str = (v: unknown) => (v === undefined || v === null ? undefined : String(v));
  return {
    image: String(s.image),
    env: Object.fromEntries(Object.entries((s.env ?? {}) as Record<string, unknown>).map(([k, v]) => [k, String(v)])),
    ports: ((s.ports ?? []) as unknown[]).map(String),
    options: str(s.options) ?? '',
    ...(s.command !== undefined ? { command: str(s.command) } : {}),
    ...(s.entrypoint !== undefined ? { entrypoint: str(s.entrypoint) } : {}),
    volumes: ((s.volumes ?? []) as unknown[]).map(String),
  };
}

/**
 * Reads templates/github/services.yaml; `variant` 'runner' = the job on the runner, 'container' = the container: job; major picks the PGDATA tmpfs path as the template says for it; image replaced by `image`.
 * @throws Error when the template shows no single tmpfs path for the major's side of 18, or the job has no --tmpfs
 */
export function servicesTemplate(variant: 'runner' | 'container', major: number, image: string): WorkflowService {
  const jobs = templateJobs();
  const svc = readService(jobs[TEMPLATE_JOBS[variant]]!);
  // The template shows one major up to 17 and one from 18: the job whose image is on the same
  // side of 18 as `major` says which path gets the tmpfs.
  const model = Object.values(TEMPLATE_JOBS)
    .map((id) => readService(jobs[id]!))
    .find((s) => imageMajor(s.image) >= 18 === major >= 18);
  const paths = model ? tmpfsPaths(model.options) : [];
  if (paths.length !== 1) throw new Error(`the template shows no single tmpfs path for major ${major}`);
  const [own] = tmpfsPaths(svc.options);
  if (!own) throw new Error(`the template's job ${TEMPLATE_JOBS[variant]} has no --tmpfs in its options`);
  return { ...svc, image, options: svc.options.replace(`--tmpfs ${own}`, `--tmpfs ${paths[0]}`) };
}

/** `docker create` arguments (after 'docker') the runner builds for this service: name, network + alias, labels, env, ports, options split as the runner does, image, then command words */
export function runnerCreateArgs(
  svc: WorkflowService,
  opts: { name: string; network: string; alias: string; label: string },
): string[] {
  // DockerCreate, piece by piece (a service has no --workdir), joined by spaces, then split by
  // .NET's Process: quotes in `options` and `command` group words, as on the runner.
  const pieces = [
    `--name ${opts.name}`,
    `--label ${opts.label}`,
    `--network ${opts.network}`,
    `--network-alias ${opts.alias}`,
    ...svc.ports.map((p) => `-p ${p}`),
    svc.options,
    ...Object.entries(svc.env).map(([k, v]) => runnerEscapedOption('-e', k, v)),
    '-e GITHUB_ACTIONS=true',
    ...('CI' in svc.env ? [] : ['-e CI=true']),
    ...svc.volumes.map(runnerVolumeOption),
    ...(svc.entrypoint ? [`--entrypoint "${svc.entrypoint}"`] : []),
    svc.image,
    svc.command ?? '',
  ];
  return processArguments(`create ${pieces.join(' ')}`);
}

/** The template's wait step (the first step of the job of `variant`). */
export function waitStep(variant: 'runner' | 'container' = 'runner'): TemplateStep {
  const step = templateJobs()[TEMPLATE_JOBS[variant]]!.steps[0];
  if (!step?.run || step.shell !== 'bash') throw new Error('the template job does not start with a bash wait step');
  return step;
}

/**
 * The template's wait step's command words (argv) for a given DATABASE_URL. It runs as the runner
 * runs a `shell: bash` step (`bash --noprofile --norc -eo pipefail {0}`, the script as `-c`), with
 * DATABASE_URL set by `env`; the rest of the environment is the caller's, where GITHUB_ENV must
 * name a file the step may append `DATABASE_URL=...` to (the runner always sets it; /dev/null
 * drops it). It exits 0 once `SELECT 1` is answered, 1 after its 60 s deadline.
 */
export function waitStepArgv(url: string): string[] {
  return ['env', `DATABASE_URL=${url}`, 'bash', '--noprofile', '--norc', '-eo', 'pipefail', '-c', waitStep().run!];
}
