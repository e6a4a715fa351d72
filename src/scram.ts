/**
 * The superuser's password, stored without ever being sent: a SCRAM-SHA-256 verifier computed
 * here and given to `ALTER ROLE … PASSWORD '<verifier>'`, which PostgreSQL stores as it is
 * (manual: "Password Authentication"; RFC 5802 and RFC 7677). A server logging every statement
 * (log_statement=all) then logs the verifier, never the password.
 */
import { saslprep } from '@mongodb-js/saslprep';
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';

/** Iterations PostgreSQL uses by default (scram_iterations, 4096). */
const SCRAM_ITERATIONS = 4096;

/**
 * The password as PostgreSQL hashes it (src/common/saslprep.c, pg_saslprep): pure ASCII as it
 * is; otherwise SASLprep (RFC 4013), or the raw text when SASLprep refuses it.
 */
export function preparePassword(password: string): string {
  if (![...password].some((c) => c.charCodeAt(0) > 0x7f)) return password;
  try {
    return saslprep(password);
  } catch {
    return password;
  }
}

/**
 * A SCRAM-SHA-256 verifier: `SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>`, base64
 * parts, as pg_authid.rolpassword holds it.
 * @param salt 16 random bytes unless given (tests give one)
 */
export function scramVerifier(password: string, salt: Buffer = randomBytes(16), iterations = SCRAM_ITERATIONS): string {
  const salted = pbkdf2Sync(preparePassword(password), salt, iterations, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest();
  const serverKey = createHmac('sha256', salted).update('Server Key').digest();
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}
