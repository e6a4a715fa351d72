/**
 * The `extensions` input after start: each one checked against pg_available_extensions, then
 * created (CREATE EXTENSION IF NOT EXISTS … CASCADE); what is missing or refused names the fix.
 */
import type pg from 'pg';
import { InputError } from './errors.js';
import type { ServerError } from './init-errors.js';
import { throwIfInterrupted } from './interrupt.js';
import { EXTENSION_ALIASES } from './rules.js';
import type { Server } from './server.js';

/** What provides the server's extensions, for messages: the image, or the binaries' folder. */
function extensionSource(server: Server): string {
  return server.mode === 'docker' ? `image ${server.image}` : `the PostgreSQL binaries in ${server.bindir}`;
}

/**
 * Creates each extension (CREATE EXTENSION IF NOT EXISTS … CASCADE) in the client's database,
 * after checking they are all available.
 * @throws InputError (extensions) naming what is missing, where it was looked for, and the fix,
 *   or the server's refusal (with shared_preload_libraries as the fix when it says so); the
 *   client's connection errors as they come
 */
export async function createExtensions(client: pg.Client, names: string[], server: Server): Promise<void> {
  if (names.length === 0) return;
  const available = new Set(
    (await client.query<{ name: string }>('SELECT name FROM pg_available_extensions')).rows.map((r) => r.name),
  );
  const missing = names.filter((n) => !available.has(n));
  if (missing.length > 0) {
    const renamed = missing.filter((n) => EXTENSION_ALIASES[n] && available.has(EXTENSION_ALIASES[n]));
    const major = server.serverVersion.split(/[ .]/)[0] ?? '';
    throw new InputError(
      'extensions',
      `${missing.map((n) => `"${n}"`).join(', ')} ${missing.length > 1 ? 'are' : 'is'} not available in ${extensionSource(server)}`,
      renamed.length
        ? renamed.map((n) => `The extension "${n}" is named "${EXTENSION_ALIASES[n]}": list that`).join('; ')
        : server.mode === 'docker'
          ? `Use an image that has it, e.g. pgvector/pgvector:pg${major} for vector, postgis/postgis:${major}-3.5 for postgis (input 'image'); SELECT name FROM pg_available_extensions lists what this one has`
          : `Install its package for PostgreSQL ${major} on the runner (e.g. postgresql-${major}-pgvector), or use mode: docker with an image that has it`,
    );
  }
  for (const name of names) {
    throwIfInterrupted();
    try {
      await client.query(`CREATE EXTENSION IF NOT EXISTS ${client.escapeIdentifier(name)} CASCADE`);
    } catch (error) {
      const e = error as ServerError;
      if (!e.code) throw error;
      const preload = /shared_preload_libraries/.test(`${e.message} ${e.hint ?? ''} ${e.detail ?? ''}`);
      throw new InputError(
        'extensions',
        `CREATE EXTENSION ${name} failed: ${e.message}${e.hint ? `; HINT: ${e.hint.replace(/\.$/, '')}` : ''}`,
        preload ? `Load its library at start: settings: shared_preload_libraries=${name}` : 'See the server message',
      );
    }
  }
}
