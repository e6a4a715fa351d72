/**
 * How GitHub's runner (actions/runner, the mirror's HEAD 258d6c857, at or after PR #4276
 * 20111cbfd that added `command` and `entrypoint` to services) turns a service into docker
 * commands, for running the services template exactly as the runner does:
 * - src/Runner.Worker/Container/DockerCommandManager.cs builds each docker command as ONE string
 *   (DockerCreate, DockerNetworkCreate, ...) and runs it through src/Runner.Sdk/ProcessInvoker.cs,
 *   which hands it to .NET's Process as `StartInfo.Arguments`; on Linux .NET splits that string
 *   with the rules of dotnet/runtime Process.Unix.cs ParseArgumentsIntoList (processArguments);
 * - src/Runner.Worker/Container/DockerUtil.cs CreateEscapedOption/EscapeString quote `-e` values.
 */

/**
 * Splits a command-line string the way .NET's Process does on Unix (dotnet/runtime,
 * src/libraries/System.Diagnostics.Process/src/System/Diagnostics/Process.Unix.cs,
 * ParseArgumentsIntoList and GetNextArgument, the "Parsing C++ Command-Line Arguments" rules):
 * spaces and tabs separate words; double quotes group (single quotes are plain characters); `""`
 * inside quotes is one quote; 2n backslashes before a quote give n backslashes and the quote
 * groups, 2n+1 give n backslashes and a literal quote; other backslashes are literal.
 * @returns the words, [] for an empty string
 */
export function processArguments(args: string): string[] {
  const words: string[] = [];
  let i = 0;
  while (i < args.length) {
    while (i < args.length && (args[i] === ' ' || args[i] === '\t')) i++;
    if (i === args.length) break;
    let word = '';
    let inQuotes = false;
    while (i < args.length) {
      let backslashes = 0;
      while (i < args.length && args[i] === '\\') {
        i++;
        backslashes++;
      }
      if (backslashes > 0) {
        if (i >= args.length || args[i] !== '"') {
          word += '\\'.repeat(backslashes);
        } else {
          word += '\\'.repeat(Math.floor(backslashes / 2));
          if (backslashes % 2 !== 0) {
            word += '"';
            i++;
          }
        }
        continue;
      }
      const c = args[i]!;
      if (c === '"') {
        if (inQuotes && i < args.length - 1 && args[i + 1] === '"') {
          word += '"';
          i++;
        } else {
          inQuotes = !inQuotes;
        }
        i++;
        continue;
      }
      if ((c === ' ' || c === '\t') && !inQuotes) break;
      word += c;
      i++;
    }
    words.push(word);
  }
  return words;
}

/**
 * DockerUtil.EscapeString: each run of backslashes before a `"` doubled plus one more, a trailing
 * run of backslashes doubled, the whole wrapped in double quotes ('' stays '').
 */
export function runnerEscape(value: string): string {
  if (value === '') return '';
  const escaped = value.replace(/(\\*)"/g, '$1$1\\"').replace(/(\\+)$/, '$1$1');
  return `"${escaped}"`;
}

/**
 * DockerUtil.CreateEscapedOption(flag, key[, value]): `-e "KEY=VALUE"`, `-e "KEY"` for an empty
 * value ('' for an empty key).
 */
export function runnerEscapedOption(flag: string, key: string, value?: string): string {
  if (key === '') return '';
  return value === undefined || value === '' ? `${flag} ${runnerEscape(key)}` : `${flag} ${runnerEscape(`${key}=${value}`)}`;
}

/**
 * ContainerInfo.cs MountVolume.ParseVolumeString and DockerCreate's `-v` text for one `volumes:`
 * entry: `target`, `target:ro`, `source:target`, `source:target:ro`.
 */
export function runnerVolumeOption(volume: string): string {
  const parts = volume.split(':');
  let source: string | undefined;
  let target = volume;
  let readOnly = false;
  if (parts.length === 3) {
    [source, target] = [parts[0]!, parts[1]!];
    readOnly = parts[2]!.toLowerCase() === 'ro';
  } else if (parts.length === 2) {
    if (parts[1]!.toLowerCase() === 'ro') [target, readOnly] = [parts[0]!, true];
    else [source, target] = [parts[0]!, parts[1]!];
  }
  const q = (s: string) => `"${s.replace(/"/g, '\\"')}"`;
  return `-v ${source ? `${q(source)}:${q(target)}` : q(target)}${readOnly ? ':ro' : ''}`;
}

/**
 * `docker network create` arguments (after 'docker') of DockerNetworkCreate on Linux:
 * `network create --label LABEL NETWORK` (the runner names it github_network_<32 hex>).
 */
export function runnerNetworkCreateArgs(network: string, label: string): string[] {
  return processArguments(`network create --label ${label} ${network}`);
}

/**
 * The health read of ContainerOperationProvider.ContainerHealthcheck (DockerInspect):
 * `inspect --format="{{if .Config.Healthcheck}}{{print .State.Health.Status}}{{end}}" ID`; its
 * first line is '' without a health check (the runner then waits no more), else starting,
 * healthy or unhealthy (it polls while starting, after 2, 4, 8, 16, 32, 32 ... s).
 */
export function runnerHealthArgs(containerId: string): string[] {
  return processArguments(`inspect --format="{{if .Config.Healthcheck}}{{print .State.Health.Status}}{{end}}" ${containerId}`);
}
