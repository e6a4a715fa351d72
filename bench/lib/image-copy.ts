/**
 * Full copies of an image in a registry on 127.0.0.1, so that a pull is a real one (sections 6
 * and 8): the image's files as one new layer that no local image shares, pushed, then removed
 * locally. One registry per run, started on first use; each image copied once per run and
 * pushed while other copies are made; both removed when the run ends.
 */
import { execFileSync } from 'node:child_process';
import { dockerOk, removeContainer } from '../../src/docker/engine.js';
import { forgetImage } from '../../testkit/images.js';
import { startRegistry, type Registry } from '../../testkit/registry.js';
import type { Context } from './context.js';

/**
 * A full copy of `image` in `registry` as `<registry>/pg-tmpfs-bench/postgres:<tag>`: the image's
 * files exported (`docker export` to a file in the run's disk folder) and imported as one new
 * layer, so that no local image shares it, with the image's environment, entrypoint, command and
 * volumes; pushed, then removed locally. Argument arrays only.
 * @param registered every reference imported locally is added here first, for removal when a step fails
 * @returns the reference to pull
 */
async function pushFullCopy(ctx: Context, image: string, registry: Registry, tag: string, registered: string[]): Promise<string> {
  const ref = `${registry.address}/pg-tmpfs-bench/postgres:${tag}`;
  const cfg = JSON.parse(
    await dockerOk(['image', 'inspect', '--format', '{{json .Config}}', image], 'docker image inspect', ''),
  ) as {
    Env?: string[];
    Entrypoint?: string[];
    Cmd?: string[];
    Volumes?: Record<string, unknown>;
  };
  const changes = [
    ...(cfg.Env ?? []).map((e) => `ENV ${e}`),
    `ENTRYPOINT ${JSON.stringify(cfg.Entrypoint ?? [])}`,
    `CMD ${JSON.stringify(cfg.Cmd ?? [])}`,
    ...Object.keys(cfg.Volumes ?? {}).map((v) => `VOLUME ${v}`),
    'EXPOSE 5432',
  ].flatMap((c) => ['--change', c]);
  const name = `${ctx.prefix}-export-${tag}`;
  const tar = `${ctx.diskWork}/export-${tag}.tar`;
  const removeTemp = ctx.cleanup.add(`container ${name} and ${tar}`, async () => {
    await removeContainer(name);
    execFileSync('rm', ['-f', tar]);
  });
  try {
    await dockerOk(['create', '--name', name, image], 'docker create', 'See the Docker error');
    await dockerOk(['export', '--output', tar, name], 'docker export', 'See the Docker error', undefined, 600_000);
    await dockerOk(['import', ...changes, tar, ref], 'docker import', 'See the Docker error', undefined, 600_000);
    registered.push(ref);
    await dockerOk(['push', '--quiet', ref], 'docker push', 'See the Docker error', undefined, 600_000);
    forgetImage(ref);
    return ref;
  } finally {
    await removeTemp();
  }
}

/** The run's registry and the copies pushed to it, by image. */
interface Copies {
  registry: Promise<Registry>;
  byImage: Map<string, Promise<string>>;
  /** Every reference imported locally (removed when the run ends, even when its push failed). */
  imported: string[];
}

const runs = new WeakMap<Context, Copies>();

/** The run's registry on 127.0.0.1, started on first use and stopped (its copies forgotten locally) when the run ends. */
function copiesOf(ctx: Context): Copies {
  let copies = runs.get(ctx);
  if (!copies) {
    const imported: string[] = [];
    const registry = startRegistry().then((r) => {
      ctx.cleanup.adopt('registry', async () => {
        for (const ref of imported) forgetImage(ref);
        await r.stop();
      });
      return r;
    });
    copies = { registry, byImage: new Map(), imported };
    runs.set(ctx, copies);
  }
  return copies;
}

/**
 * The reference of a full copy of `image` in the run's registry (pushFullCopy), pushed on first
 * use; it is not on the machine when this returns. Calls for several images may run at once.
 * @param tag the copy's tag, when this call makes it
 */
export function fullCopy(ctx: Context, image: string, tag: string): Promise<string> {
  const copies = copiesOf(ctx);
  let ref = copies.byImage.get(image);
  if (!ref) {
    ref = copies.registry.then((r) => pushFullCopy(ctx, image, r, tag, copies.imported));
    // A failed copy is tried again by the next caller.
    void ref.catch(() => copies.byImage.delete(image));
    copies.byImage.set(image, ref);
  }
  return ref;
}
