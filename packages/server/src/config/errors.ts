// The one startup error of the host's configuration: every problem at once; the executable exits 2.
export class HostConfigError extends Error {
  readonly code = 'CONFIG_INVALID';
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'HostConfigError';
    this.problems = problems;
  }
}
