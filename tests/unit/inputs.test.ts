import { describe, expect, it } from 'vitest';
import { inputError, parse } from '../helpers/inputs.js';
import { InputError } from '../../src/errors.js';
import { NEWEST_MAJOR, type InputName } from '../../src/inputs.js';
import { parseInputs, withoutUserinfo } from '../../src/parse-inputs.js';
import { initdbPathProblem } from '../../src/fsutil.js';
import { toolCacheProblem } from '../../src/native/source/npm/kept.js';

describe('parseInputs', () => {
  it('applies the defaults', () => {
    const c = parse({});
    expect(c.image).toBe(`postgres:${NEWEST_MAJOR}`);
    expect([c.mode, c.major, c.imageGiven, c.locale]).toEqual(['auto', null, false, 'C']);
    expect(c.port).toBe(5432);
    expect(c.publishHost).toBe('127.0.0.1');
    expect([c.user, c.password, c.database]).toEqual(['postgres', 'postgres', 'postgres']);
    expect(c.tmpfsSize).toBeNull();
    expect(c.shmSize).toBe('512m');
    expect(c.waitTimeoutMs).toBe(60_000);
    expect(c.exportEnv).toBe(true);
    expect(c.wait).toBe(true);
    expect(c.containerName).toMatch(/^pg-tmpfs-\w+-[0-9a-f]{6}$/);
  });

  it('derives the image from the version, and image overrides it', () => {
    expect(parse({ 'postgres-version': '16' }).image).toBe('postgres:16');
    expect(parse({ 'postgres-version': '16.4-bookworm' }).major).toBe(16);
    expect(parse({ 'postgres-version': '17-alpine' }).image).toBe('postgres:17-alpine');
    expect(parse({ 'postgres-version': '16', image: 'postgis/postgis:17-3.5' }).image).toBe('postgis/postgis:17-3.5');
  });

  it('keeps a password exactly, spaces included', () => {
    expect(parse({ password: ' p@ss:w/rd ' }).password).toBe(' p@ss:w/rd ');
  });

  it.each<[InputName, string, RegExp]>([
    ['mode', 'podman', /not a mode/],
    ['locale', 'en US', /not a locale name/],
    ['postgres-version', 'latest', /not a PostgreSQL version/],
    ['postgres-version', '17; rm -rf /', /not a PostgreSQL version/],
    ['image', '--privileged', /not an image reference/],
    ['port', '70000', /whole number from 0 to 65535/],
    ['port', 'abc', /whole number/],
    ['tmpfs-size', 'lots', /not a size/],
    ['shm-size', '1.5g', /not a size/],
    ['wait-timeout', '0', /whole number from 1/],
    ['export-env', 'yes', /not true or false/],
    ['wait', 'later', /not true or false/],
    ['container-name', '-x', /not a valid container name/],
    ['user', 'x'.repeat(64), /longer than 63 bytes/],
    ['publish-host', 'example.com', /not an IP address/],
    ['settings', 'fsync', /not name=value/],
    // #26: template0 accepts no connections (Docker waited out wait-timeout), template1 exists.
    ['database', 'template0', /built-in template database that accepts no connections/],
    ['database', 'template1', /built-in template database/],
  ])('rejects %s=%j, naming the input and a fix', (input, value, message) => {
    const error = inputError(() => parse({ [input]: value }));
    expect(error.input).toBe(input);
    expect(error.problem).toMatch(message);
    expect(error.fix.length).toBeGreaterThan(5);
  });

  it('keeps postgres (the default) and names that only look like a template as database', () => {
    expect(parse({ database: 'postgres' }).database).toBe('postgres');
    expect(parse({ database: 'Template0' }).database).toBe('Template0');
    expect(parse({ database: 'template2' }).database).toBe('template2');
  });

  it('reads wait false (background start) in any case', () => {
    expect(parse({ wait: 'False' }).wait).toBe(false);
    expect(parse({ wait: 'TRUE' }).wait).toBe(true);
  });

  it('accepts port 0 (free port) and sizes with units', () => {
    const c = parse({ port: '0', 'tmpfs-size': '2G', 'shm-size': '1g' });
    expect([c.port, c.tmpfsSize, c.shmSize]).toEqual([0, '2g', '1g']);
  });
});

describe('registry', () => {
  const parse = (values: Record<string, string>) => parseInputs((name) => values[name] ?? '');
  it('prefixes the default image with a mirror, and leaves a given image alone', () => {
    expect(parse({ registry: 'mirror.gcr.io/library' }).image).toBe(`mirror.gcr.io/library/postgres:${NEWEST_MAJOR}`);
    expect(parse({ registry: '127.0.0.1:5000/library/', 'postgres-version': '17' }).image).toBe(
      '127.0.0.1:5000/library/postgres:17',
    );
    expect(parse({ registry: 'mirror.gcr.io/library', image: 'postgis/postgis:17-3.5' }).image).toBe('postgis/postgis:17-3.5');
  });
  it('rejects what is not a registry, naming the input', () => {
    expect(() => parse({ registry: 'https://mirror.gcr.io' })).toThrow(
      /Input 'registry': "https:\/\/mirror.gcr.io" is not a registry/,
    );
    expect(() => parse({ registry: '-v /:/host' })).toThrow(InputError);
    // Docker would read these as a Docker Hub namespace, or reject the upper case.
    expect(() => parse({ registry: 'myorg' })).toThrow(/Input 'registry'/);
    expect(() => parse({ registry: 'mirror.gcr.io/Library' })).toThrow(/Input 'registry'/);
    expect(parse({ registry: 'localhost:5000' }).image).toBe(`localhost:5000/postgres:${NEWEST_MAJOR}`);
  });
  it('never repeats a credential given in registry or image (issue #26)', () => {
    for (const [input, value] of [
      ['registry', 'me:s3cret@registry.example/library'],
      ['registry', 'me:s3cret@registry.example'],
      ['image', 'me:s3cret@registry.example/postgres:17'],
    ] as const) {
      let message = '';
      try {
        parse({ [input]: value });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toContain(`Input '${input}': "***@registry.example`);
      expect(message).toContain('Credentials do not belong in it');
      expect(message).not.toContain('s3cret');
    }
  });
  it('withoutUserinfo keeps digests and plain references', () => {
    expect(withoutUserinfo('postgres@sha256:' + 'a'.repeat(64))).toBe('postgres@sha256:' + 'a'.repeat(64));
    expect(withoutUserinfo('mirror.gcr.io/library')).toBe('mirror.gcr.io/library');
    expect(withoutUserinfo('u:p@host:5000/lib/postgres@sha256:' + 'b'.repeat(64))).toBe(
      '***@host:5000/lib/postgres@sha256:' + 'b'.repeat(64),
    );
  });
});

describe('paths initdb runs from (issue #43)', () => {
  it.each([
    ['/tmp/c$HOME', '"$"'],
    ['/tmp/a`id`', '"`"'],
    ['/tmp/q"x', '"""'],
    ['/tmp/b\\s', '"\\"'],
  ])('cache-dir %j is refused before anything starts, naming %s', (value, shown) => {
    const error = inputError(() => parse({ 'cache-dir': value }));
    expect(error.input).toBe('cache-dir');
    expect(error.problem).toBe(`"${value}" holds ${shown}, which initdb's shell command cannot carry`);
  });

  it.each(['/tmp/with space', "/tmp/it's", '/tmp/grüße', ''])('cache-dir %j is taken', (value) => {
    expect(parse({ 'cache-dir': value }).cacheDir).toBe(value);
  });

  it('cache-dir with $ is taken in Docker mode, where initdb does not run from it', () => {
    expect(parse({ 'cache-dir': '/tmp/c$HOME', mode: 'docker' }).cacheDir).toBe('/tmp/c$HOME');
  });

  it('initdbPathProblem lists each character once, and says nothing on Windows', () => {
    expect(initdbPathProblem('/a$b$c`d')).toBe('holds "$", "`", which initdb\'s shell command cannot carry');
    expect(initdbPathProblem('C:\\Users\\$me', 'win32')).toBeNull();
  });

  it('toolCacheProblem refuses a relative RUNNER_TOOL_CACHE and one initdb cannot run from', () => {
    expect(toolCacheProblem('tc')).toBe('"tc" is not an absolute path');
    expect(toolCacheProblem('/opt/t$c')).toBe('"/opt/t$c" holds "$", which initdb\'s shell command cannot carry');
    expect(toolCacheProblem('/opt/hostedtoolcache')).toBeNull();
  });
});
