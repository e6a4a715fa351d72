/**
 * What the template unit tests (tests/unit/templates-*.test.ts) share: the template files, the
 * arguments every template must run, and the GitLab component parsed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { DURABILITY_SETTINGS, settingsToArgs } from '../../src/profile.js';
import { ROOT } from './infra.js';

/** The templates folder and the files checked here. */
export const TEMPLATES = join(ROOT, 'templates');
export const COMPONENT = join(TEMPLATES, 'postgres.yml');
export const WOODPECKER = join(TEMPLATES, 'woodpecker', 'pipeline.yaml');
export const RUNNER_CONFIG = join(TEMPLATES, 'gitlab-runner.toml');

/** `postgres -c fsync=off -c ...`: what every template must run. */
export const EXPECTED_ARGS = ['postgres', ...settingsToArgs(DURABILITY_SETTINGS)];

/** A spec:inputs entry of the component. */
export interface Input {
  description?: string;
  type?: 'string' | 'number' | 'boolean' | 'array';
  default?: unknown;
  regex?: string;
  options?: unknown[];
}

/** A service of the component's job. */
export interface Service {
  name: string;
  alias: string;
  entrypoint: string[];
  command: string[];
  variables: Record<string, unknown>;
}

/** The component's hidden job (the keys used here). */
export interface HiddenJob {
  services: Service[];
  variables: Record<string, unknown>;
  before_script: string[];
  cache: { key: string; paths: string[]; when?: string; policy?: string }[];
}

/** The component parsed: its text, spec:inputs and jobs. */
export function loadComponent(): { text: string; inputs: Record<string, Input>; jobs: Record<string, HiddenJob> } {
  const text = readFileSync(COMPONENT, 'utf8');
  const docs = parseAllDocuments(text);
  if (!Array.isArray(docs)) throw new Error('templates/postgres.yml is empty');
  for (const doc of docs) expect(doc.errors, `YAML errors in ${COMPONENT}`).toEqual([]);
  expect(docs).toHaveLength(2); // the spec header, `---`, the job content
  const header = docs[0]!.toJS() as { spec: { inputs: Record<string, Input> } };
  const jobs = docs[1]!.toJS() as Record<string, HiddenJob>;
  return { text, inputs: header.spec.inputs, jobs };
}

/** The component's one hidden job. */
export function theJob(): HiddenJob {
  const { jobs } = loadComponent();
  const job = jobs['$[[ inputs.job-name ]]'];
  if (!job) throw new Error('the component defines no job named $[[ inputs.job-name ]]');
  return job;
}

/** The job's one service. */
export function theService(): Service {
  const services = theJob().services;
  expect(services).toHaveLength(1);
  return services[0]!;
}

/** A GitLab input regex as JavaScript sees it; anchored like GitLab's (RE2, whole value). */
export function inputRegex(input: Input): RegExp {
  if (input.regex === undefined) throw new Error('input has no regex');
  return new RegExp(input.regex);
}

/** Every file under a directory, relative to it, with / separators. */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split('\\').join('/'))
    .sort();
}
