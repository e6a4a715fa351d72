/**
 * The inputs Docker mode refuses: those it cannot carry, checked before anything starts
 * (checkDockerInputs), and a failed `docker run` traced to the input at fault (runError).
 */
import { InputError, SetupError } from '../errors.js';
import type { Config } from '../inputs.js';
import { checkDockerSettings } from './run-plan.js';

/**
 * Checks that Docker mode can carry the inputs, before anything starts: the official image passes
 * the password to initdb through `--pwfile`, which keeps only its first line, and the settings
 * to pg_ctl as one argument (run-plan.ts DOCKER_SETTINGS_MAX_BYTES).
 * @throws InputError (input `password`) for a password with a line break; (input `settings`)
 *   for settings too long to pass (checkDockerSettings)
 */
export function checkDockerInputs(config: Config): void {
  if (/[\r\n]/.test(config.password)) {
    throw new InputError(
      'password',
      "holds a line break, which Docker mode cannot carry (the image's initdb reads only the first line of the password)",
      'Use a password without line breaks, or mode: native',
    );
  }
  checkDockerSettings(config.settings);
}

/** The error for a failed `docker run`, naming the input at fault when Docker's message shows one. */
export function runError(stderr: string, config: Config): Error {
  const text = stderr.trim();
  // Docker's own line, not the CLI's closing "Run 'docker run --help' for more information".
  const said =
    text
      .split('\n')
      .filter((l) => l.trim() && !/^Run 'docker [a-z -]*--help'/.test(l))
      .pop() ?? '';
  if (/port is already allocated|address already in use/i.test(text)) {
    return new InputError('port', `port ${config.port} is in use (${said})`, 'Choose another port, or 0 for a free one');
  }
  if (/cannot assign requested address|invalid IP address/i.test(text)) {
    return new InputError(
      'publish-host',
      `Docker cannot publish on ${config.publishHost} (${said})`,
      'Use an address of this machine: 127.0.0.1 (default), or 0.0.0.0 for every interface',
    );
  }
  if (/Conflict\. The container name .* is already in use/i.test(text)) {
    return new InputError(
      'container-name',
      `a container named "${config.containerName}" exists already`,
      'Choose another name, or remove that container (docker rm -f NAME)',
    );
  }
  return new SetupError(`docker run failed: ${text}`, 'See the Docker error above');
}
