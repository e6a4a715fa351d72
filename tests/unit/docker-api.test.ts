import { createServer, type Server } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { apiGet, DEFAULT_SOCKET, engineSocket, pathSafeName } from '../../src/docker/api.js';
import { SetupError } from '../../src/errors.js';

describe('engineSocket: the socket the docker CLI would use', () => {
  it('the default socket when nothing names another endpoint', () => {
    expect(engineSocket({}, null, 'linux')).toBe(DEFAULT_SOCKET);
    expect(engineSocket({}, '{"auths":{}}', 'linux')).toBe(DEFAULT_SOCKET);
    expect(engineSocket({}, '{"currentContext":"default"}', 'linux')).toBe(DEFAULT_SOCKET);
    expect(engineSocket({ DOCKER_CONTEXT: 'default' }, '{"currentContext":"remote"}', 'linux')).toBe(DEFAULT_SOCKET);
  });
  it('DOCKER_HOST unix://PATH (rootless Docker) is that path; tcp or ssh is for the CLI', () => {
    expect(engineSocket({ DOCKER_HOST: 'unix:///run/user/1000/docker.sock' }, null, 'linux')).toBe('/run/user/1000/docker.sock');
    expect(engineSocket({ DOCKER_HOST: 'tcp://10.0.0.1:2376' }, null, 'linux')).toBeNull();
    expect(engineSocket({ DOCKER_HOST: 'ssh://me@host' }, null, 'linux')).toBeNull();
    expect(engineSocket({ DOCKER_HOST: 'unix://' }, null, 'linux')).toBeNull();
  });
  it('a context (DOCKER_CONTEXT first, then the config) is for the CLI, as is another platform or a config it cannot read', () => {
    expect(engineSocket({ DOCKER_CONTEXT: 'remote', DOCKER_HOST: 'unix:///x.sock' }, null, 'linux')).toBeNull();
    expect(engineSocket({}, '{"currentContext":"desktop-linux"}', 'linux')).toBeNull();
    expect(engineSocket({ DOCKER_HOST: 'unix:///x.sock' }, '{"currentContext":"desktop-linux"}', 'linux')).toBe('/x.sock');
    expect(engineSocket({}, '{not json', 'linux')).toBeNull();
    expect(engineSocket({}, null, 'darwin')).toBeNull();
  });
});

describe('pathSafeName', () => {
  it('takes references, not paths the daemon would resolve elsewhere', () => {
    for (const ok of [
      'postgres:18',
      'pg-tmpfs-test/postgres:18',
      '127.0.0.1:5000/a/b:1',
      'postgres@sha256:abc',
      'a.b/c',
      'a0520e7107a9',
      'my_job-container.1',
    ]) {
      expect(pathSafeName(ok), ok).toBe(true);
    }
    for (const bad of ['../containers/x', 'a/../../containers/x', 'a/./b', 'a?b', 'a#b', 'a b', '-x']) {
      expect(pathSafeName(bad), bad).toBe(false);
    }
  });
});

describe('apiGet', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pg-tmpfs-api-'));
  const servers: Server[] = [];
  afterAll(() => {
    for (const s of servers) s.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const listen = (name: string, onConnection: (socket: import('node:net').Socket) => void) =>
    new Promise<string>((resolve) => {
      const server = createServer(onConnection);
      servers.push(server);
      const path = join(dir, name);
      server.listen(path, () => resolve(path));
    });

  it('returns the status and body of an HTTP answer', async () => {
    const path = await listen('ok.sock', (s) =>
      s.once('data', () =>
        s.end('HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n{"message":1}'),
      ),
    );
    expect(await apiGet(path, '/images/x/json', 'docker image', 5000)).toEqual({ status: 404, body: '{"message":1}' });
  });
  it('null when the socket cannot be reached (the caller asks the CLI)', async () => {
    expect(await apiGet(join(dir, 'missing.sock'), '/images/x/json', 'docker image', 5000)).toBeNull();
    const path = await listen('closes.sock', (s) => s.destroy());
    expect(await apiGet(path, '/images/x/json', 'docker image', 5000)).toBeNull();
  });
  it('a daemon that accepts and never answers fails at the deadline, worded as the CLI call would be', async () => {
    const path = await listen('silent.sock', () => undefined);
    const error = await apiGet(path, '/images/x/json', 'docker image', 300).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SetupError);
    expect((error as SetupError).message).toMatch(/^docker image did not finish within 0 s/);
  });
});
