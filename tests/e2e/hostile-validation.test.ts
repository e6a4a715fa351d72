/**
 * Hostile CLI input through the CLI, in-process (runCli), rejected by validation before anything
 * starts, whatever the mode: every row must fail with exit code 1, name the input at fault
 * (`error: --INPUT: problem. fix`), and leave nothing behind (leftoverSnapshot; no instance record
 * in the case's own state folder). Faults of the machine and the engine are in
 * hostile-faults-{native,docker}.test.ts.
 *
 * Each row was run by hand first (`node dist/cli.js up ...`); the table holds what the CLI really
 * says. Docker rows use the local test image only (nothing is ever pulled).
 */
import { afterEach, beforeAll, describe, it } from 'vitest';
import { requireImages } from '../helpers/infra.js';
import { cleanupCase, IMAGE, runRow, type Row } from '../helpers/hostile-rows.js';
import { MODES } from '../helpers/hostile-sweep.js';

afterEach(cleanupCase);

beforeAll(() => {
  requireImages();
});

const LONG = 'u'.repeat(64);
/** 64 bytes in 63 characters. */
const LONG_BYTES = `é${'x'.repeat(62)}`;

/** Rejected by validation before anything starts, whatever the mode. */
const VALIDATION: Row[] = [
  { title: 'postgres-version not a version', argv: ['--postgres-version', 'abc'], input: '--postgres-version' },
  { title: 'postgres-version with three parts', argv: ['--postgres-version', '1.2.3'], input: '--postgres-version' },
  { title: 'image with a space', argv: ['--image', 'bad image'], input: '--image' },
  { title: 'image starting with a dash', argv: ['--image=-bad'], input: '--image' },
  { title: 'registry with spaces and capitals', argv: ['--registry', 'Not A Registry'], input: '--registry' },
  { title: 'registry that is a Docker Hub namespace', argv: ['--registry', 'library'], input: '--registry' },
  { title: 'port -1', argv: ['--port=-1'], input: '--port' },
  { title: 'port 70000', argv: ['--port', '70000'], input: '--port' },
  { title: 'port abc', argv: ['--port', 'abc'], input: '--port' },
  { title: 'port 1.5', argv: ['--port', '1.5'], input: '--port' },
  { title: 'publish-host a host name', argv: ['--publish-host', 'localhost'], input: '--publish-host' },
  { title: 'publish-host a word', argv: ['--publish-host', 'abc'], input: '--publish-host' },
  { title: 'publish-host no IPv4 address', argv: ['--publish-host', '999.1.1.1'], input: '--publish-host' },
  { title: 'password-file missing', argv: ['--password-file', '/nonexistent/pw'], input: '--password-file' },
  { title: 'setting value with a NUL', argv: ['--setting', 'work_mem=1\0'], input: '--settings' },
  { title: 'user longer than 63 bytes', argv: ['--user', LONG], input: '--user' },
  { title: 'user of 63 characters but 64 bytes', argv: ['--user', LONG_BYTES], input: '--user' },
  { title: 'user with a double quote', argv: ['--user', 'a"b'], input: '--user' },
  { title: 'user with a NUL', argv: ['--user', 'a\0b'], input: '--user' },
  { title: 'database longer than 63 bytes', argv: ['--database', LONG], input: '--database' },
  { title: 'database with a NUL', argv: ['--database', 'a\0b'], input: '--database' },
  { title: 'password with a NUL', argv: ['--password', 'a\0b'], input: '--password' },
  { title: 'tmpfs-size with an unknown unit', argv: ['--tmpfs-size', '1x'], input: '--tmpfs-size' },
  { title: 'tmpfs-size 0', argv: ['--tmpfs-size', '0'], input: '--tmpfs-size' },
  { title: 'shm-size negative', argv: ['--shm-size=-5m'], input: '--shm-size' },
  { title: 'shm-size a word', argv: ['--shm-size', 'lots'], input: '--shm-size' },
  { title: "settings line without '='", argv: ['--settings', 'work_mem'], input: '--settings' },
  { title: 'settings line without a name', argv: ['--settings', '=1'], input: '--settings' },
  { title: 'settings name starting with a digit', argv: ['--settings', '1bad=3'], input: '--settings' },
  { title: 'settings name with two dots', argv: ['--settings', 'a.b.c=1'], input: '--settings' },
  { title: 'settings empty value', argv: ['--settings', 'work_mem='], input: '--settings' },
  { title: 'settings bad third line', argv: ['--settings', 'a=1\n\nbad'], input: '--settings' },
  { title: "setting (repeatable flag) without '='", argv: ['--setting', 'work_mem'], input: '--settings' },
  { title: 'wait-timeout 0', argv: ['--wait-timeout', '0'], input: '--wait-timeout' },
  { title: 'wait-timeout 3601', argv: ['--wait-timeout', '3601'], input: '--wait-timeout' },
  { title: 'wait-timeout x', argv: ['--wait-timeout', 'x'], input: '--wait-timeout' },
  { title: 'wait-timeout -5', argv: ['--wait-timeout=-5'], input: '--wait-timeout' },
  // The CLI sets the container name from --name; the flag itself is unknown (commander's usage error).
  { title: 'container-name (no such flag)', argv: ['--container-name', 'x'], input: "unknown option '--container-name'" },
  { title: 'locale with a space', argv: ['--locale', 'en US'], input: '--locale' },
  { title: 'locale with a semicolon', argv: ['--locale', 'C;rm'], input: '--locale' },
  { title: 'locale with a slash', argv: ['--locale', 'xx/../C'], input: '--locale' },
  { title: 'name with a slash', argv: ['--name', 'bad/name'], input: '--name' },
  { title: 'name empty', argv: ['--name', ''], input: '--name' },
  { title: 'name longer than 63 characters', argv: ['--name', LONG], input: '--name' },
  { title: 'name starting with a dot', argv: ['--name', '.hidden'], input: '--name' },
  { title: 'name starting with a dash', argv: ['--name', '-x'], input: '--name' },
];

describe('hostile CLI input and faults fail with the input named and leave nothing', () => {
  describe.each(MODES)('validation, $mode mode', ({ args }) => {
    it.each(VALIDATION)('$title', (row) => runRow(row, args));
  });

  it.each<Row>([
    { title: 'mode not a mode', argv: ['--mode', 'bogus'], input: '--mode' },
    { title: 'mode in capitals', argv: ['--mode', 'Docker', '--image', IMAGE], input: '--mode' },
    // #35's own hostile pass: a line break in one --setting set a second setting.
    { title: 'a --setting with a line break', argv: ['--setting', 'application_name=x\nwork_mem=13MB'], input: '--settings' },
    { title: 'user with a line break', argv: ['--user', 'a\nb'], input: '--user' },
    { title: 'user pg_admin', argv: ['--user', 'pg_admin'], input: '--user' },
  ])('validation: $title', (row) => runRow(row, []));
});
