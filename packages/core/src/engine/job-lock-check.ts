// Agenda checks a running job's lock every half lock lifetime against the job's in-memory
// `lockedAt`, which its own end of run clears just before it writes that end to the store. When the
// write takes longer than the check's interval (a slow store), the check finds no lock and reports
// the run as cancelled although the job's body has already returned. Its message names the job.
const NO_LOCK = /^execution of '(.+)' canceled, no lockedAt date found\./;

/**
 * Whether an error Agenda reports is that check meeting a run whose body had already ended (so no
 * failure of the job): its job is not among those whose bodies are running in this process.
 */
export function isEndedRunLockCheck(error: Error, running: ReadonlySet<string>): boolean {
  const name = NO_LOCK.exec(error.message)?.[1];
  return name !== undefined && !running.has(name);
}
