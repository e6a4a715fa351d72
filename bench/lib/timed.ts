/**
 * Timed variants (sections 1 and 6): ways of starting a server, each measured once per
 * repetition, the variants interleaved (rotated each repetition); and start() with its server
 * registered for cleanup the moment its handle exists.
 */
import { performance } from 'node:perf_hooks';
import type { InputName } from '../../src/inputs.js';
import { parseInputs } from '../../src/parse-inputs.js';
import { start, stop } from '../../src/lifecycle.js';
import { consoleLogger } from '../../src/log.js';
import type { Server, ServerHandle } from '../../src/server.js';
import { throwIfInterrupted } from './cleanup.js';
import type { Context } from './context.js';
import { rotation, type Section } from './results.js';

/** One way of starting a server, measured once per repetition. */
export interface Variant {
  key: string;
  label: string;
  /** Starts, measures, and removes what it started. @returns seconds and details */
  measure(rep: number): Promise<{ seconds: number; details?: Record<string, unknown> }>;
}

/**
 * Measures every variant `ctx.options.reps` times, interleaved; a failed measurement is recorded
 * on its case and the run goes on. Case ids are `<section>/<variant key>`, in seconds.
 */
export async function measureVariants(ctx: Context, section: Section, variants: readonly Variant[]): Promise<void> {
  const { results, options } = ctx;
  for (let rep = 0; rep < options.reps; rep++) {
    for (const v of rotation(variants, rep)) {
      throwIfInterrupted();
      const c = results.get(section, `${section}/${v.key}`, v.label, 'seconds', 'seconds');
      ctx.log(`${section} ${rep + 1}/${options.reps}: ${v.key}`);
      try {
        const m = await v.measure(rep);
        results.add(c, m.seconds, m.details);
      } catch (error) {
        throwIfInterrupted();
        results.fail(c, error);
        ctx.log(`  failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
}

const quiet = consoleLogger(true);

/** The action's inputs from a partial set of values (the rest: defaults). */
export function inputs(values: Partial<Record<InputName, string>>) {
  return parseInputs((name) => values[name] ?? '');
}

/**
 * start() as the action runs it, its server registered for cleanup the moment its handle exists
 * (the latest handle is the one removed), `use` run on it while it is up, and removed again
 * before returning.
 * @returns the wall time of start() in seconds, the server it reported, and what `use` returned
 * @throws what start() or `use` threw, after the server is removed
 */
export async function startRegistered<T = undefined>(
  ctx: Context,
  values: Partial<Record<InputName, string>>,
  use?: (server: Server) => Promise<T>,
): Promise<{ seconds: number; server: Server; used: T | undefined }> {
  let handle: ServerHandle | null = null;
  let undo: (() => Promise<void>) | null = null;
  const t0 = performance.now();
  try {
    const server = await start(inputs(values), quiet, (h) => {
      handle = h;
      if (h.mode === 'docker') ctx.containerIds.push(h.containerId);
      undo ??= ctx.cleanup.adopt(`server ${values['container-name']}`, async () => {
        const problems = handle ? await stop(handle) : [];
        if (problems.length) throw new Error(problems.join('; '));
      });
    });
    const seconds = (performance.now() - t0) / 1000;
    return { seconds, server, used: use ? await use(server) : undefined };
  } finally {
    await (undo as (() => Promise<void>) | null)?.();
  }
}
