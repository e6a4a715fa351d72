/**
 * How a client reaches the server: the connection URI and libpq's environment variables
 * (manual: libpq "Connection Strings" and "Environment Variables"), and the address checks.
 */
import getPort from 'get-port';
import { InputError } from './errors.js';
import { DEFAULTS } from './inputs.js';

/** Where and as whom to connect. */
export interface ConnectionInfo {
  /** Host name or IP address (TCP) the server is published on, e.g. `127.0.0.1`. */
  host: string;
  /** TCP port on `host`. */
  port: number;
  user: string;
  password: string;
  database: string;
}

/**
 * `postgresql://user:password@host:port/database`, with user, password and database
 * percent-encoded (RFC 3986) so any character survives; IPv6 hosts are bracketed.
 */
export function connectionUri(c: ConnectionInfo): string {
  const host = c.host.includes(':') ? `[${c.host}]` : c.host;
  const enc = encodeURIComponent;
  return `postgresql://${enc(c.user)}:${enc(c.password)}@${host}:${c.port}/${enc(c.database)}`;
}

/**
 * libpq's environment variables (manual, libpq "Environment Variables", PostgreSQL 18), but those
 * connectionEnv sets: each sends a client elsewhere, or shapes its session (PGOPTIONS,
 * PGCLIENTENCODING, PGDATESTYLE, PGTZ, PGGEQO) or its transport (SSL, GSS). The init command
 * runs without them: what it loads is cached under a key that does not hold them.
 */
export const LIBPQ_SESSION_ENV: readonly string[] = Object.freeze([
  'PGHOSTADDR',
  'PGPASSFILE',
  'PGREQUIREAUTH',
  'PGCHANNELBINDING',
  'PGSERVICE',
  'PGSERVICEFILE',
  'PGOAUTHDEBUG',
  'PGOPTIONS',
  'PGAPPNAME',
  'PGSSLMODE',
  'PGREQUIRESSL',
  'PGSSLNEGOTIATION',
  'PGSSLCOMPRESSION',
  'PGSSLCERT',
  'PGSSLKEY',
  'PGSSLCERTMODE',
  'PGSSLROOTCERT',
  'PGSSLCRL',
  'PGSSLCRLDIR',
  'PGSSLSNI',
  'PGREQUIREPEER',
  'PGSSLMINPROTOCOLVERSION',
  'PGSSLMAXPROTOCOLVERSION',
  'PGMINPROTOCOLVERSION',
  'PGMAXPROTOCOLVERSION',
  'PGGSSENCMODE',
  'PGKRBSRVNAME',
  'PGGSSLIB',
  'PGGSSDELEGATION',
  'PGCONNECT_TIMEOUT',
  'PGCLIENTENCODING',
  'PGTARGETSESSIONATTRS',
  'PGLOADBALANCEHOSTS',
  'PGDATESTYLE',
  'PGTZ',
  'PGGEQO',
  'PGSYSCONFDIR',
  'PGLOCALEDIR',
]);

/** DATABASE_URL and libpq's PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE. */
export function connectionEnv(c: ConnectionInfo): Record<string, string> {
  return {
    DATABASE_URL: connectionUri(c),
    PGHOST: c.host,
    PGPORT: String(c.port),
    PGUSER: c.user,
    PGPASSWORD: c.password,
    PGDATABASE: c.database,
  };
}

/**
 * The forms a secret takes when a program percent-encodes it, as the outputs do (DATABASE_URL,
 * connection-uri, databases: encodeURIComponent) and as common libraries do: RFC 3986 strict
 * (Python's quote with safe='', .NET's Uri.EscapeDataString), Python's quote (keeps `/`),
 * quote_plus and urlencode (space as `+`), the HTML form encoding (URLSearchParams, Ruby's
 * CGI.escape: keeps `*`, encodes `~`), each with upper- and lower-case hex (.NET's
 * HttpUtility.UrlEncode writes lower case), and the JSON string escape. A log masks each given
 * form, so all are masked.
 * @returns the distinct forms, `secret` itself first
 */
export function secretForms(secret: string): string[] {
  const bytes = (c: string) =>
    [...Buffer.from(c, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  /** Percent-encodes every character but those `keep` matches; a space as `space`. */
  const encode = (keep: RegExp, space: string) =>
    Array.from(secret)
      .map((c) => (c === ' ' ? space : keep.test(c) ? c : bytes(c)))
      .join('');
  const unreserved = /^[A-Za-z0-9_.~-]$/;
  const forms = [
    secret,
    encodeURIComponent(secret),
    encode(unreserved, '%20'),
    encode(unreserved, '+'),
    encode(/^[A-Za-z0-9_.~/-]$/, '%20'),
    encode(/^[A-Za-z0-9_.*-]$/, '+'),
    JSON.stringify(secret).slice(1, -1),
  ];
  const lower = forms.map((f) => f.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()));
  return [...new Set([...forms, ...lower])];
}

/** Whether an address is a loopback one (127.0.0.0/8, ::1, localhost). */
export function isLoopback(address: string): boolean {
  return /^127\./.test(address) || address === '::1' || address === 'localhost';
}

/**
 * The TCP port to use on `host` (the publish-host input; a wildcard address means every
 * interface): a free one for 0, else `port` itself, which must be free.
 * @throws InputError (input `port`) when the given port is in use, or for 0 when no port is free
 *   (the kernel's ephemeral range used up); (input `publish-host`) when `host` is not an address
 *   of this machine
 */
export async function choosePort(host: string, port: number): Promise<number> {
  let got: number;
  try {
    got = await getPort({ host: host === '0.0.0.0' || host === '::' ? undefined : host, ...(port ? { port } : {}) });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAFNOSUPPORT') {
      throw new InputError(
        'publish-host',
        `${host} is not an address of this machine (${code})`,
        'Use 127.0.0.1 (default), or 0.0.0.0 for every interface',
      );
    }
    // get-port's words when neither `port` nor a port of the kernel's choosing could be bound:
    // every port of the ephemeral range (net.ipv4.ip_local_port_range) is taken.
    if (error instanceof Error && /No available ports found/.test(error.message)) {
      if (port !== 0) {
        throw new InputError('port', `port ${port} on ${host} is in use`, 'Choose another port, or 0 for a free one');
      }
      throw new InputError(
        'port',
        `no free TCP port on ${host}: every port of the kernel's ephemeral range is in use (${error.message})`,
        'Give a free port (e.g. --port 5433 / port: 5433), or end what holds the ports (ss -tan) or widen net.ipv4.ip_local_port_range',
      );
    }
    throw error;
  }
  if (port !== 0 && got !== port) {
    throw new InputError('port', `port ${port} on ${host} is in use`, 'Choose another port, or 0 for a free one');
  }
  return got;
}

/** The warning for a publish-host other than loopback (none for loopback). */
export function publishHostWarnings(publishHost: string): string[] {
  return isLoopback(publishHost)
    ? []
    : [`Input 'publish-host' is ${publishHost}: PostgreSQL accepts password connections from other hosts`];
}

/**
 * The warning for a server that answers to the default password (`DEFAULTS.password`,
 * "postgres"), or none. Any user who can reach the port connects as superuser with it, and a
 * superuser runs programs as the server's OS user (`COPY … TO PROGRAM`, manual: COPY). So it is
 * quiet only where nobody else can reach the port: a GitHub-hosted runner (`RUNNER_ENVIRONMENT`
 * is `github-hosted`: a single-tenant VM made for the job) with a loopback `publish-host`.
 * Everywhere else (a self-hosted runner, a laptop, another CI) the log says so once per start:
 * the default stays, as in every `services:` example, and the user decides (docs/security.md).
 * @param password the superuser password the server is given
 * @param publishHost the address the port is published on (input `publish-host`)
 * @param env where `RUNNER_ENVIRONMENT` is read (default: this process's)
 * @returns zero or one warning line naming input `password` and the fix
 */
export function defaultPasswordWarnings(password: string, publishHost: string, env: NodeJS.ProcessEnv = process.env): string[] {
  if (password !== DEFAULTS.password) return [];
  const fix = "Set input 'password' (CLI: --password-file or PGPASSWORD) to a secret of your own";
  if (!isLoopback(publishHost)) {
    return [
      `Input 'password' is the default ("${DEFAULTS.password}") and the port is published on ${publishHost}: anyone who reaches it connects as superuser. ${fix}`,
    ];
  }
  if (env.RUNNER_ENVIRONMENT === 'github-hosted') return [];
  return [
    `Input 'password' is the default ("${DEFAULTS.password}"): any user of this machine can connect to 127.0.0.1 as superuser and run programs as the server's OS user (COPY ... TO PROGRAM). On a machine you share, ${fix.charAt(0).toLowerCase()}${fix.slice(1)}`,
  ];
}
