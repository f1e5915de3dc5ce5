// CPU time of a process and all its descendants (Linux /proc): what live processes used, plus what
// exited children left in their parents' `cutime`/`cstime` once reaped. Used to count the store's
// CPU (FerretDB with every PostgreSQL backend, or the JVM of memory-mongo) beside Herald's own.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

interface ProcessCpu {
  parent: number;
  ticks: number;
}

function readProcess(pid: string): ProcessCpu | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: fields are counted after its end.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const [utime, stime, cutime, cstime] = [fields[11], fields[12], fields[13], fields[14]].map(Number);
    return { parent: Number(fields[1]), ticks: utime! + stime! + cutime! + cstime! };
  } catch {
    return undefined; // exited while we read
  }
}

export function treeCpuMs(rootPid: number): number {
  const processes = new Map<number, ProcessCpu>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const found = readProcess(entry);
    if (found) processes.set(Number(entry), found);
  }
  const children = new Map<number, number[]>();
  for (const [pid, { parent }] of processes) children.set(parent, [...(children.get(parent) ?? []), pid]);
  let ticks = 0;
  for (const queue = [rootPid]; queue.length > 0; ) {
    const pid = queue.pop()!;
    ticks += processes.get(pid)?.ticks ?? 0;
    queue.push(...(children.get(pid) ?? []));
  }
  return (ticks * 1000) / TICKS_PER_SECOND;
}
