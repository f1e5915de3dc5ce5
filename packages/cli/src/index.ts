// Library entry of @herald/cli: the executable's main function (argv → exit code) and its version,
// for embedding the command in another tool or driving it from tests.
export { main } from './main.js';
export { VERSION } from './version.js';
export { CliError, ExitCode } from './errors.js';
