import { readFileSync } from 'node:fs';
import { Bench, type Task } from 'tinybench';
import { medianWithSpread, type Measured } from './report.js';

/**
 * One function under tinybench, `runs` times (a fresh Bench each, `timeMs` of samples after
 * a short warm-up): the median of the runs' median latencies in milliseconds, with their
 * spread. The spread is run to run, not sample to sample: a sample's own extremes are
 * mostly a collection landing in it, while the question a reader asks of the figure is how
 * far another run's median can be from it.
 */
export function tinybenchRuns(
  name: string,
  fn: () => void,
  runs: number,
  timeMs: number,
): Promise<Measured> {
  return medianOfRuns(runs, async () => {
    const bench = new Bench({
      name,
      time: timeMs,
      warmupTime: Math.min(250, timeMs / 4),
    });
    bench.add(name, fn);
    await bench.run();
    return taskMedianMs(bench.tasks[0]);
  });
}

function taskMedianMs(task: Task | undefined): number {
  const result = task?.result;
  if (result === undefined || result.state !== 'completed') {
    throw new Error(
      `benchmark '${task?.name ?? '?'}' did not complete: ${JSON.stringify(result)}`,
    );
  }
  return result.latency.p50;
}

/** Heap growth, in bytes, caused by what `build` creates and keeps alive. Needs --expose-gc. */
export function retainedHeapBytes<T>(build: () => T): {
  bytes: number;
  value: T;
} {
  const before = heapUsedAfterGc();
  const value = build();
  return { bytes: heapUsedAfterGc() - before, value };
}

/** Heap in use once everything unreachable is collected (bytes). Needs --expose-gc. */
export function heapUsedAfterGc(): number {
  const collect = globalThis.gc;
  if (collect === undefined)
    throw new Error('run the benchmarks with node --expose-gc');
  collect();
  collect();
  return process.memoryUsage().heapUsed;
}

/** CPU time (user + system, all threads of the process) that `run` takes, in ms. */
export async function cpuMs<T>(
  run: () => Promise<T>,
): Promise<{ ms: number; value: T }> {
  const start = process.cpuUsage();
  const value = await run();
  const { user, system } = process.cpuUsage(start);
  return { ms: (user + system) / 1000, value };
}

/** Median of a few timed runs of something too slow for tinybench's loop (ms), with their spread. */
export async function medianOfRuns(
  runs: number,
  run: () => Promise<number>,
): Promise<Measured> {
  return (await mediansOfRuns(runs, async () => ({ value: await run() })))
    .value;
}

/**
 * `runs` runs of a measurement that gives several figures at once (a load run's p50, p99
 * and CPU per request): each figure's median over the runs, with its spread. The runs go
 * one after the other, never at once, so one does not load the machine under another.
 */
export async function mediansOfRuns<Name extends string>(
  runs: number,
  run: (index: number) => Promise<Record<Name, number>>,
): Promise<Record<Name, Measured>> {
  if (!Number.isInteger(runs) || runs < 1)
    throw new Error(`runs must be a whole number of at least 1, got ${runs}`);
  const results: Record<Name, number>[] = [];
  for (let index = 0; index < runs; index += 1) results.push(await run(index));
  const names = Object.keys(results[0] ?? {}) as Name[];
  return Object.fromEntries(
    names.map((name) => [
      name,
      medianWithSpread(results.map((result) => result[name])),
    ]),
  ) as Record<Name, Measured>;
}

/** The middle value (the upper one of an even count); NaN for none. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/**
 * CPU time (user + system) another process has used so far, in ms, from
 * `/proc/<pid>/stat` (its ticks are USER_HZ, 100 per second on Linux).
 */
export function processCpuMs(pid: number): number {
  // utime and stime are fields 14 and 15.
  const fields = procStatFields(pid);
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * The fields of `/proc/<pid>/stat` after the command name (which may hold spaces): the
 * first of them is field 3, the state. Throws when the process is gone.
 */
export function procStatFields(pid: number | string): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** The resident set of a process now (VmRSS) or at its largest (VmHWM), in bytes. */
export function residentBytes(
  pid: number | undefined,
  field: 'VmRSS' | 'VmHWM',
): number {
  const status = readFileSync(`/proc/${pid ?? 'self'}/status`, 'utf8');
  const kib = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1];
  if (kib === undefined) throw new Error(`no ${field} for process ${pid}`);
  return Number(kib) * 1024;
}
