/**
 * Error types that carry what the user should do. The action turns them into error
 * annotations; the CLI prints them.
 */

/** Bad user input; `input` names the action input (or CLI flag) at fault. */
export class InputError extends Error {
  /**
   * @param input the input's name as the user writes it, e.g. `port`
   * @param problem what is wrong
   * @param fix how to fix it
   * @param detail extra lines (e.g. the server log tail that shows the problem), printed before the message
   * @param detailTitle what `detail` is, for the line above it
   */
  constructor(
    readonly input: string,
    readonly problem: string,
    readonly fix: string,
    readonly detail = '',
    readonly detailTitle = 'server log',
  ) {
    super(`Input '${input}': ${problem}. ${fix}`);
    this.name = 'InputError';
  }

  /** The file, 1-based line and column at fault (an init SQL file), for an annotation on that line. */
  location?: { file: string; line: number; column: number };
}

/** The machine lacks something (Docker, an image, binaries) or the server misbehaved. */
export class SetupError extends Error {
  /**
   * @param problem what went wrong
   * @param fix how to fix it
   * @param detail extra lines (e.g. the server log tail), printed after the message
   */
  constructor(
    readonly problem: string,
    readonly fix: string,
    readonly detail = '',
  ) {
    super(`${problem}. ${fix}`);
    this.name = 'SetupError';
  }
}
