/**
 * Choosing a mode and starting PostgreSQL: the one entry point the action and the CLI share.
 */
import { startDocker } from './docker-mode.js';
import { engineVersion } from './docker.js';
import { SetupError } from './errors.js';
import type { Config } from './inputs.js';
import type { Logger } from './log.js';
import { installedBinaries, realProbe, type Binaries, type Probe } from './native/binaries.js';
import { startNative, type NativeState } from './native/native-mode.js';
import type { Started } from './server.js';

/** A started server, with what is needed to stop it. */
export interface Running extends Started {
  /** Native mode's state (for stopNative); absent in Docker mode. */
  native?: NativeState;
}

/** Callbacks that record what must be undone, as soon as it exists. */
export interface Hooks {
  onContainer?: (id: string) => void;
  onNative?: (state: NativeState) => void;
}

/**
 * Resolves `auto`: native when no image was given and the asked major's binaries are installed
 * (any major when none was asked), else Docker when an engine answers.
 * @throws SetupError saying what was looked for and how to fix it, when neither is there
 */
export async function chooseMode(
  config: Config,
  log: Logger,
  probe: Probe = realProbe(),
): Promise<{ mode: 'docker' } | { mode: 'native'; binaries?: Binaries }> {
  if (config.mode !== 'auto') return { mode: config.mode };
  const installed = installedBinaries(probe);
  if (!config.imageGiven) {
    const match = config.major === null ? installed[0] : installed.find((b) => b.major === config.major);
    if (match) {
      log.info(`mode auto: native (PostgreSQL ${match.major} binaries in ${match.bindir})`);
      return { mode: 'native', binaries: match };
    }
  }
  try {
    await engineVersion();
    log.info(
      config.imageGiven
        ? 'mode auto: docker (an image was given)'
        : `mode auto: docker (no PostgreSQL ${config.major ?? ''} binaries installed)`,
    );
    return { mode: 'docker' };
  } catch (error) {
    const found = installed.length ? `found majors ${installed.map((b) => b.major).join(', ')}` : 'found none';
    throw new SetupError(
      `mode auto: no PostgreSQL ${config.major ?? ''} server binaries (${found})${config.imageGiven ? ' (and an image was given)' : ''}, and Docker did not answer (${error instanceof SetupError ? error.problem : String(error)})`.replace(
        '  ',
        ' ',
      ),
      `Install PostgreSQL ${config.major ?? ''} server binaries or start Docker, or set 'postgres-version' to an installed major`.replace(
        '  ',
        ' ',
      ),
    );
  }
}

/**
 * Starts PostgreSQL in the chosen mode.
 * @throws InputError / SetupError as startDocker and startNative do; nothing is left behind then
 */
export async function start(config: Config, log: Logger, hooks: Hooks = {}): Promise<Running> {
  const chosen = await chooseMode(config, log);
  if (chosen.mode === 'native') return startNative(config, log, hooks.onNative, chosen.binaries);
  return startDocker(config, log, hooks.onContainer);
}
