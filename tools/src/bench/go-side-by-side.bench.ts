import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { AggregateContainerState } from '@tandem/estimators';
import {
  CPU_HISTOGRAM_OPTIONS,
  DecayingHistogram,
  MIN_SAMPLE_WEIGHT,
} from '@tandem/histogram';
import { median, retainedHeapBytes } from './measure.js';
import { medianWithSpread, type Figure } from './report.js';

/**
 * Side by side with upstream's Go: the same workload run on upstream's histogram
 * (`k8s.io/autoscaler/vertical-pod-autoscaler` v1.8.1, built from its Go module by
 * `tools/bench-go/histogram`) and on ours, in interleaved rounds (Go, Tandem, Go, Tandem…),
 * after checking that both give the very same numbers. Times are CPU time (user + system of
 * the whole process), which waiting for a core on a shared machine does not inflate. Speed ratios are Go's time divided
 * by ours (above 1: we are faster); the heap ratio is ours divided by Go's (below 1: we use
 * less). Skipped, with a message, where `go` is not installed.
 *
 * The workload comes from a seed and a 32-bit LCG implemented identically in both programs
 * (see `main.go`): keep the two in step.
 */

const UPSTREAM = 'k8s.io/autoscaler/vertical-pod-autoscaler v1.8.1';
const DAY_MS = 24 * 3600 * 1000;
/** 2026-01-01T00:00:00Z, the first sample's time. */
const START_MS = 1767225600000;
const SAMPLE_STEP_MS = 6000;
const CPU_STEP_MS = 5 * 60 * 1000;
const CPU_SAMPLES_PER_DAY = 288;
const MEMORY_STEP_MS = 60 * 60 * 1000;
const MEMORY_SAMPLES_PER_DAY = 24;
/** Each timed repetition saves every state's checkpoint this many times. */
const CHECKPOINT_PASSES = 5;
/**
 * How much faster than upstream's Go each raced path must be, on whichever CPU runs the
 * bench: a lead of a few percent is noise on another machine.
 */
const SPEED_TARGET = 1.5;
const VERIFIED_PERCENTILES = [0, 0.1, 0.5, 0.9, 0.95, 0.99, 1];

export interface SideBySideOptions {
  /** Interleaved rounds; each runs every phase once on each side. */
  rounds: number;
  /** Timed repetitions per phase and round (each side reports their median). */
  reps: number;
  samples: number;
  queries: number;
  /** Aggregate states whose checkpoints are saved. */
  states: number;
  /** Aggregate states built for the heap figure. */
  heapStates: number;
  seed: number;
}

export const DEFAULT_SIDE_BY_SIDE: SideBySideOptions = {
  rounds: 7,
  reps: 5,
  samples: 100_000,
  queries: 200_000,
  states: 2_000,
  heapStates: 10_000,
  seed: 1,
};

type SpeedPhase = 'add' | 'percentile' | 'checkpoint' | 'checkpoint-json';

interface GoResult {
  goVersion: string;
  nsPerOp?: number[];
  heapBytesPerState?: number;
  verify?: GoVerification;
}

interface GoVerification {
  percentiles: number[];
  histogram: unknown;
  states: Record<string, unknown>[];
}

const execFileAsync = promisify(execFile);

export async function goSideBySideFigures(
  root: string,
  options: SideBySideOptions = DEFAULT_SIDE_BY_SIDE,
): Promise<Figure[]> {
  const binary = buildGoBenchmark(join(root, 'tools', 'bench-go', 'histogram'));
  if (binary === undefined) return [];
  const runGo = async (phase: string, count?: number): Promise<GoResult> => {
    const args = [
      `-phase=${phase}`,
      `-samples=${options.samples}`,
      `-queries=${options.queries}`,
      `-states=${count ?? options.states}`,
      `-seed=${options.seed}`,
      `-reps=${options.reps}`,
    ];
    const { stdout } = await execFileAsync(binary, args, {
      maxBuffer: 256 * 2 ** 20,
    });
    return JSON.parse(stdout) as GoResult;
  };

  const ours = new TandemSide(options);
  const verified = await runGo('verify');
  verifyIdentical(verified.verify, ours.verification());
  const goVersion = verified.goVersion;

  const phases: SpeedPhase[] = [
    'add',
    'percentile',
    'checkpoint',
    'checkpoint-json',
  ];
  // V8 compiles while it runs; Go arrives compiled. One untimed pass first.
  for (const phase of phases) ours.nsPerOp(phase);
  const rounds = new Map(
    phases.map((phase) => [
      phase,
      { go: [] as number[], ours: [] as number[] },
    ]),
  );
  const heap = { go: [] as number[], ours: [] as number[] };
  for (let round = 0; round < options.rounds; round += 1) {
    for (const phase of phases) {
      const go = median((await runGo(phase)).nsPerOp ?? []);
      const tandem = ours.nsPerOp(phase);
      rounds.get(phase)?.go.push(go);
      rounds.get(phase)?.ours.push(tandem);
    }
    if (round < 3) {
      heap.go.push(
        (await runGo('heap', options.heapStates)).heapBytesPerState ?? NaN,
      );
      heap.ours.push(ours.heapBytesPerState(options.heapStates));
    }
  }

  const labels: Record<SpeedPhase, [string, string]> = {
    add: ['samples added to a decaying CPU histogram', 'ns/sample'],
    percentile: ['Percentile(0.9) queries', 'ns/query'],
    checkpoint: ['checkpoint save (aggregate state)', 'ns/state'],
    'checkpoint-json': [
      'checkpoint save + JSON encoding (aggregate state)',
      'ns/state',
    ],
  };
  const figures: Figure[] = phases.map((phase, index) => {
    const { go, ours: tandem } = rounds.get(phase) ?? { go: [], ours: [] };
    const [label, unit] = labels[phase];
    const prefix =
      index === 0
        ? `upstream ${UPSTREAM.split(' ')[1]} on ${goVersion}, speed = Go time ÷ ours (> 1: faster): `
        : '  ';
    return {
      name: `${prefix}${label} (Go ${formatNs(median(go))} ÷ Tandem ${formatNs(median(tandem))} ${unit})`,
      ...medianWithSpread(
        go.map((goNs, round) => goNs / (tandem[round] ?? NaN)),
      ),
      unit: '× Go',
      target: { comparison: '>=', value: SPEED_TARGET },
    };
  });
  figures.push({
    name: `  heap per aggregate state, ours ÷ Go (Tandem ${Math.round(median(heap.ours))} ÷ Go ${Math.round(median(heap.go))} bytes)`,
    value: median(heap.ours) / median(heap.go),
    unit: '× Go',
    target: { comparison: '<=', value: 1 },
  });
  return figures;
}

function formatNs(ns: number): string {
  return ns >= 100 ? Math.round(ns).toLocaleString('en-US') : ns.toFixed(1);
}

/**
 * Builds `main.go` once per content (go.mod, go.sum, main.go) into ~/.cache/tandem/bench-go,
 * outside the repository; the Go build and module caches stay where Go keeps them.
 * Undefined, with a message, when Go is not installed or the build fails.
 */
function buildGoBenchmark(source: string): string | undefined {
  try {
    execFileSync('go', ['version'], { stdio: 'ignore' });
  } catch {
    process.stderr.write(
      'skipping the side-by-side benchmark with upstream Go: `go` is not on PATH\n',
    );
    return undefined;
  }
  const hash = createHash('sha256');
  for (const file of ['go.mod', 'go.sum', 'main.go']) {
    hash.update(file).update(readFileSync(join(source, file)));
  }
  const cacheRoot = process.env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache');
  const directory = join(
    cacheRoot,
    'tandem',
    'bench-go',
    hash.digest('hex').slice(0, 16),
  );
  const binary = join(directory, 'histogram-bench');
  if (existsSync(binary)) return binary;
  mkdirSync(directory, { recursive: true });
  const partial = `${binary}.${process.pid}.partial`;
  try {
    execFileSync('go', ['build', '-o', partial, '.'], {
      cwd: source,
      env: { ...process.env, GOFLAGS: '-mod=mod' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? error);
    process.stderr.write(
      `skipping the side-by-side benchmark with upstream Go: building ${source} (needs ${UPSTREAM} from the Go module proxy) failed:\n${stderr}\n`,
    );
    return undefined;
  }
  renameSync(partial, binary);
  return binary;
}

/** A 32-bit LCG, the same as `lcg` in main.go. */
class Lcg {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (Math.imul(this.state, 1664525) + 1013904223) >>> 0;
    return this.state;
  }
}

const DECADES = [1, 10, 100];

/** CPU samples in millicores over three decades, as `cpuMillicores` in main.go. */
function cpuMillicores(random: Lcg): number {
  const r = random.next();
  return (10 + ((r >>> 10) % 90)) * (DECADES[(r >>> 29) % 3] ?? 1);
}

/** Aggregate states fed a day of usage each, as `aggregateStates` in main.go. */
function aggregateStates(
  count: number,
  seed: number,
): AggregateContainerState[] {
  const random = new Lcg(seed);
  const states: AggregateContainerState[] = [];
  for (let s = 0; s < count; s += 1) {
    const baseMillicores = 10 + ((random.next() >>> 8) % 4000);
    const baseBytes = 52428800 + ((random.next() >>> 8) % 8000) * 1048576;
    const state = new AggregateContainerState(START_MS);
    for (let i = 0; i < CPU_SAMPLES_PER_DAY; i += 1) {
      const usage = Math.floor(
        (baseMillicores * (70 + ((random.next() >>> 8) % 61))) / 100,
      );
      state.addCpuSample(START_MS + i * CPU_STEP_MS, usage);
    }
    for (let i = 0; i < MEMORY_SAMPLES_PER_DAY; i += 1) {
      const usage = Math.floor(
        (baseBytes * (90 + ((random.next() >>> 8) % 21))) / 100,
      );
      state.addMemoryPeak(START_MS + (i + 1) * MEMORY_STEP_MS, usage);
    }
    states.push(state);
  }
  return states;
}

/** Our side of every phase, on the same workload as main.go's. */
class TandemSide {
  private readonly values: Float64Array;
  private readonly times: Float64Array;
  private readonly filled: DecayingHistogram;
  private readonly states: AggregateContainerState[];
  private sink = 0;

  constructor(private readonly options: SideBySideOptions) {
    const random = new Lcg(options.seed);
    this.values = Float64Array.from(
      { length: options.samples },
      () => cpuMillicores(random) / 1000,
    );
    this.times = Float64Array.from(
      { length: options.samples },
      (_, i) => START_MS + i * SAMPLE_STEP_MS,
    );
    this.filled = this.fill();
    this.states = aggregateStates(options.states, options.seed);
  }

  private fill(): DecayingHistogram {
    const histogram = new DecayingHistogram(CPU_HISTOGRAM_OPTIONS, DAY_MS);
    const { values, times } = this;
    for (let i = 0; i < values.length; i += 1)
      histogram.addSample(values[i] ?? 0, MIN_SAMPLE_WEIGHT, times[i] ?? 0);
    return histogram;
  }

  /**
   * Median over `reps` timed repetitions of one phase, CPU ns per operation: user + system
   * time of the whole process (garbage collection included), as main.go measures it.
   */
  nsPerOp(phase: SpeedPhase): number {
    const timings: number[] = [];
    for (let rep = 0; rep < this.options.reps; rep += 1) {
      const start = process.cpuUsage();
      const ops = this.run(phase);
      const { user, system } = process.cpuUsage(start);
      timings.push(((user + system) * 1000) / ops);
    }
    if (Number.isNaN(this.sink)) process.stderr.write('NaN\n');
    return median(timings);
  }

  private run(phase: SpeedPhase): number {
    switch (phase) {
      case 'add':
        this.sink += this.fill().percentile(0.5);
        return this.values.length;
      case 'percentile': {
        const histogram = this.filled;
        const queries = this.options.queries;
        for (let i = 0; i < queries; i += 1)
          this.sink += histogram.percentile(0.9);
        return queries;
      }
      case 'checkpoint':
        for (let pass = 0; pass < CHECKPOINT_PASSES; pass += 1) {
          for (const state of this.states) {
            const status = state.saveCheckpoint(Date.now());
            this.sink += status.cpuHistogram.totalWeight;
          }
        }
        return CHECKPOINT_PASSES * this.states.length;
      case 'checkpoint-json':
        for (let pass = 0; pass < CHECKPOINT_PASSES; pass += 1) {
          for (const state of this.states) {
            const status = state.saveCheckpoint(Date.now());
            this.sink += JSON.stringify(status).length;
          }
        }
        return CHECKPOINT_PASSES * this.states.length;
    }
  }

  heapBytesPerState(count: number): number {
    const { bytes } = retainedHeapBytes(() =>
      aggregateStates(count, this.options.seed),
    );
    return bytes / count;
  }

  verification(): GoVerification {
    return {
      percentiles: VERIFIED_PERCENTILES.map((p) => this.filled.percentile(p)),
      histogram: this.filled.saveCheckpoint(),
      states: this.states.map(
        (state) =>
          state.saveCheckpoint(START_MS) as unknown as Record<string, unknown>,
      ),
    };
  }
}

/**
 * Throws, naming the first difference, unless Go's and our percentiles and checkpoints
 * (bucket weights, total weights, reference times, sample times and counts; not the
 * wall-clock `lastUpdateTime`) are exactly equal.
 */
function verifyIdentical(
  go: GoVerification | undefined,
  ours: GoVerification,
): void {
  if (go === undefined) throw new Error('the Go benchmark verified nothing');
  const withoutUpdateTime = (states: Record<string, unknown>[]) =>
    states.map(({ lastUpdateTime: _ignored, ...rest }) => rest);
  const difference = firstDifference(
    { ...go, states: withoutUpdateTime(go.states) },
    { ...ours, states: withoutUpdateTime(ours.states) },
    '',
  );
  if (difference !== undefined) {
    throw new Error(
      `Tandem's histogram no longer matches upstream's Go bit for bit: ${difference}`,
    );
  }
}

function firstDifference(
  go: unknown,
  ours: unknown,
  path: string,
): string | undefined {
  if (typeof go === 'number' && typeof ours === 'number') {
    return Object.is(go, ours)
      ? undefined
      : `${path}: Go ${go}, Tandem ${ours}`;
  }
  if (
    typeof go === 'object' &&
    go !== null &&
    typeof ours === 'object' &&
    ours !== null
  ) {
    const goRecord = go as Record<string, unknown>;
    const ourRecord = ours as Record<string, unknown>;
    const keys = new Set([...Object.keys(goRecord), ...Object.keys(ourRecord)]);
    for (const key of [...keys].sort()) {
      const difference = firstDifference(
        goRecord[key],
        ourRecord[key],
        `${path}.${key}`,
      );
      if (difference !== undefined) return difference;
    }
    return undefined;
  }
  // Go writes a zero time as null where we may leave the field out.
  return (go ?? null) === (ours ?? null)
    ? undefined
    : `${path}: Go ${JSON.stringify(go)}, Tandem ${JSON.stringify(ours)}`;
}
