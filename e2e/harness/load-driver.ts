// Simulated load for a whole workload. kwok reports each pod's usage from that pod's own
// annotations, so adding replicas would not lower anyone's usage and no HPA could converge;
// the driver instead keeps a TOTAL load split over the workload's pods, the way a load
// balancer spreads real traffic.
import { httpStatusOf, type KubeClients } from './kube.ts';
import {
  checkLoad,
  hasAnnotations,
  planLoad,
  podView,
  type PodUsage,
  type PodView,
  type WorkloadLoad,
} from './load-split.ts';
import { mergePodAnnotations } from './pod-annotations.ts';
import { watchPods } from './pod-watch.ts';

export type { LoadValue, PodUsage, WorkloadLoad } from './load-split.ts';

export interface LoadDriver {
  /** Re-apply now (tests call it after changing replicas if they want no lag). */
  apply(): Promise<void>;
  /** Change the total load (constant or profile) from now on; a profile's clock restarts. */
  setLoad(load: WorkloadLoad): void;
  /** Per-pod usage last written (each pod's share, before any per-container split). */
  lastApplied(): ReadonlyMap<string, PodUsage>;
  /** Stops the watch and the timer, and waits for a write in progress. */
  stop(): Promise<void>;
}

export interface LoadDriverOptions {
  /** Re-apply period, which is what moves a time profile along. Default 5000. */
  intervalMs?: number;
  /** Problems of background rounds and of the watch (all retried). Default: stderr. */
  onError?: (error: unknown) => void;
}

/**
 * Splits `load` evenly over the pods `selector` matches in `namespace` (see planPodUsage
 * for pods that are not Ready yet) and keeps it split: a pod watch re-applies whenever a
 * pod comes, goes or changes state, and a timer every `intervalMs` for time profiles.
 * Resolves once the first round is written.
 */
export async function startLoadDriver(
  kube: KubeClients,
  namespace: string,
  selector: string,
  load: WorkloadLoad,
  options: LoadDriverOptions = {},
): Promise<LoadDriver> {
  const what = `load driver for ${namespace}/${selector}`;
  const report =
    options.onError ??
    ((error: unknown) =>
      process.stderr.write(`${what}: ${(error as Error).message}\n`));
  let current = checkLoad(load);
  let loadSetAt = Date.now();
  let stopped = false;
  const applied = new Map<string, PodUsage>();

  // False until the first round is requested: the watch reports its first list before
  // `pods` below is assigned.
  let started = false;

  async function writeRound(): Promise<void> {
    if (stopped) return;
    const views = new Map<string, PodView>();
    for (const pod of pods.pods()) {
      const view = podView(pod);
      if (view !== undefined) views.set(view.name, view);
    }
    const plans = planLoad(current, Date.now() - loadSetAt, [
      ...views.values(),
    ]);
    const failures: string[] = [];
    await Promise.all(
      [...plans].map(async ([name, plan]) => {
        // Compared with the watched pod, so the MODIFIED event of our own write does not
        // cause another write.
        const written = views.get(name)?.annotations ?? {};
        try {
          if (!hasAnnotations(written, plan.annotations))
            await mergePodAnnotations(kube, namespace, name, plan.annotations);
          applied.set(name, plan.usage);
        } catch (error) {
          // Deleted since the watch saw it: the next event drops it from the split.
          if (httpStatusOf(error) !== 404)
            failures.push(`${name}: ${(error as Error).message}`);
        }
      }),
    );
    for (const name of applied.keys())
      if (!plans.has(name)) applied.delete(name);
    if (failures.length > 0)
      throw new Error(`could not write usage of ${failures.join('; ')}`);
  }

  // Rounds run one at a time. A request while a round runs queues one more round, and
  // every request until that one starts shares it: it will read the newest pods and load.
  let queued: Promise<void> | undefined;
  let tail: Promise<void> = Promise.resolve();
  function requestRound(): Promise<void> {
    if (queued !== undefined) return queued;
    const round = tail.then(() => {
      queued = undefined;
      return writeRound();
    });
    queued = round;
    tail = round.catch(() => undefined);
    return round;
  }
  const applyInBackground = () => {
    if (started && !stopped) requestRound().catch(report);
  };

  const pods = await watchPods(
    kube,
    namespace,
    selector,
    applyInBackground,
    report,
  );
  const timer = setInterval(applyInBackground, options.intervalMs ?? 5000);
  const stop = async () => {
    stopped = true;
    clearInterval(timer);
    await pods.stop();
    await tail;
  };
  started = true;
  try {
    await requestRound();
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    apply: requestRound,
    setLoad: (next) => {
      current = checkLoad(next);
      loadSetAt = Date.now();
      applyInBackground();
    },
    lastApplied: () => new Map(applied),
    stop,
  };
}
