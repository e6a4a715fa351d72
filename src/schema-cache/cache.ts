/**
 * One start's schema cache: the key (key.ts), the lookup in the local store (store.ts), and,
 * for the action, a remote cache that restores into that store first (@actions/cache:
 * action/schema-cache.ts). The mode's start asks `open` once it knows the server's identity; on
 * a miss, lifecycle.start saves a copy of the cluster after init (`save`).
 */
import type { InitFile } from '../init-files.js';
import type { Config } from '../inputs.js';
import type { Logger } from '../log.js';
import { readSchemaInputs, schemaCacheKey, type KeyParts, type SchemaInputs, type ServerIdentity } from './key.js';
import { removeStaleFills } from '../store/removal.js';
import { drop, lookup, prune, save, storeDir, type StoreEntry } from './store.js';
import { dropEntry } from '../store/removal.js';
import type { Manifest } from '../store/manifest.js';
import type { SchemaCacheResult } from '../server.js';

/** A cache beyond this machine that restores entries into the local store, and later saves them (the action's @actions/cache). */
export interface RemoteCache {
  /**
   * Brings the entry of `key` into `dir` (the store's folder for it, and `<dir>.manifest.json`).
   * @returns whether it did; never throws (a failed download is a miss, with a warning)
   */
  restore(key: string, dir: string): Promise<boolean>;
}

/** The schema cache of one start. */
export class SchemaCache {
  key = '';
  parts: KeyParts | null = null;
  hit = false;
  entry: StoreEntry | null = null;
  saved: { dir: string; bytes: number; ms: number } | null = null;
  /** Set once an entry was found damaged or foreign: later opens of this start are misses. */
  private refused = false;
  /** Why this start saves nothing: the entry of its key did not start (damaged's `notStarted`). */
  private noSave = '';
  /** Whether the entry of the last open came from the remote cache. */
  private fromRemote = false;

  private constructor(
    readonly cacheDir: string,
    readonly inputs: SchemaInputs,
    private readonly log: Logger,
    private readonly remote: RemoteCache | null,
  ) {}

  /**
   * Reads what shapes the schema (the init files already loaded, the schema-cache-files
   * matches), before anything starts.
   * @returns null when config.schemaCache is false
   * @throws InputError (schema-cache-files) when an entry matches no file
   */
  static async prepare(
    config: Config,
    initFiles: readonly InitFile[],
    cacheDir: string,
    log: Logger,
    remote: RemoteCache | null = null,
  ): Promise<SchemaCache | null> {
    if (!config.schemaCache) return null;
    return new SchemaCache(cacheDir, await readSchemaInputs(config, initFiles), log, remote);
  }

  /**
   * Computes the key for `server` and looks it up: the remote cache first restores into the
   * store when there is one. An entry that cannot be trusted is dropped with a warning: a miss.
   * @returns the entry to restore, or null on a miss
   */
  async open(server: ServerIdentity): Promise<StoreEntry | null> {
    const { key, parts } = schemaCacheKey(this.inputs, server);
    this.key = key;
    this.parts = parts;
    if (this.refused) {
      this.entry = null;
      this.hit = false;
      return null;
    }
    // Copies a killed run left half made go first (their process is gone).
    for (const problem of (await removeStaleFills(storeDir(this.cacheDir))).problems) this.log.warning(problem);
    let found = lookup(this.cacheDir, key);
    this.fromRemote = false;
    if (!found.entry && !found.dropped && this.remote) {
      // A folder without its manifest is what a killed restore or fill left: it goes first.
      dropEntry(found.dir);
      if (await this.remote.restore(key, found.dir)) {
        this.fromRemote = true;
        found = lookup(this.cacheDir, key);
      } else dropEntry(found.dir); // a failed download may have left part of it
    }
    if (found.dropped) this.log.warning(`schema cache entry not used (${found.dropped}): a miss, init runs`);
    this.entry = found.entry;
    this.hit = found.entry !== null;
    this.log.info(this.hit ? `schema cache hit: ${key}` : `schema cache miss: ${key}`);
    return found.entry;
  }

  /**
   * The entry turned out damaged or foreign while it was restored or checked: it is dropped,
   * with a warning, and the start goes on as a miss.
   * @param notStarted the server did not start from it (EntryNotStarted): the miss that follows
   *   saves nothing, since its init would save the same entry again
   */
  damaged(problem: string, notStarted = false): void {
    if (notStarted)
      this.noSave = `a server did not start from the entry of ${this.key} this run (its init changes what the server reads at start), so this run's copy would not start either`;
    const note = this.entry ? drop(this.entry) : null;
    this.log.warning(
      `schema cache entry ${this.key} not used (${problem}${note ? `; ${note}` : ''}): a miss, init runs${this.fromRemote ? '. It came from the GitHub cache, which keeps it: change schema-cache-key, or delete that entry (gh cache delete KEY)' : ''}`,
    );
    this.entry = null;
    this.hit = false;
    this.refused = true;
  }

  /**
   * Saves a consistent copy of the cluster after init, then keeps the store within its bound.
   * A failure to save is a warning, never a failed start.
   * @param fill writes the copy into the folder it is given (and may return its manifest: store.ts save)
   */
  async save(fill: (dir: string) => Promise<Manifest | void>): Promise<void> {
    if (this.noSave) {
      this.log.warning(`schema cache not saved: ${this.noSave}`);
      return;
    }
    const t0 = performance.now();
    try {
      const placed = await save(this.cacheDir, this.key, fill);
      const ms = Math.round(performance.now() - t0);
      if (!placed) {
        this.log.info(`schema cache: another run saved ${this.key} first`);
        return;
      }
      this.saved = { ...placed, ms };
      this.log.info(`schema cache saved: ${this.key} (${Math.round(placed.bytes / 1024 / 1024)} MB in ${ms} ms)`);
      const removed = prune(this.cacheDir, this.key);
      if (removed.length)
        this.log.info(`schema cache: removed ${removed.length} least recently used entries to stay within its size`);
    } catch (error) {
      this.log.warning(`schema cache not saved: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** The result for outputs and `up --json`. */
  result(): SchemaCacheResult {
    return {
      key: this.key,
      hit: this.hit,
      entry: this.entry?.dir ?? this.saved?.dir ?? '',
      savedBytes: this.saved?.bytes ?? 0,
      saveMs: this.saved?.ms ?? 0,
    };
  }
}
