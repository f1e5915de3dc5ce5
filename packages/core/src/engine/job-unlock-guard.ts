// Agenda releases the lock of a job it will not run now (due too far ahead, or over its lock
// limit) by calling its repository's `unlockJob` without awaiting it. When that write fails — the
// store away, or the client closing under it — the rejection reaches no handler, and an unhandled
// rejection ends a Node process. A failed release costs nothing lasting: the lock runs out by
// itself after its lifetime, and the job runs then.
import type { JobRepository } from 'agenda';

/** Makes `repository.unlockJob` settle quietly whatever its write does; every other call is untouched. */
export function guardUnawaitedUnlocks(repository: Pick<JobRepository, 'unlockJob'>): void {
  const unlock = repository.unlockJob.bind(repository);
  repository.unlockJob = (job) => unlock(job).catch(() => undefined);
}
