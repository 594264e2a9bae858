import {
  AggregateContainerState,
  type AggregationConfig,
  ContainerState,
  type ContainerUsageSample,
  DEFAULT_AGGREGATION_CONFIG,
  type ResourceAmounts,
  StaleOomError,
} from '@tandem/estimators';
import { decodeStrategyState, type HistoryClock } from '@tandem/strategies';
import { CheckpointError, GO_ZERO_TIME_MS } from '@tandem/histogram';
import {
  ContainerScalingMode,
  getContainerPolicy,
  type Labels,
  type VerticalPodAutoscaler,
} from '@tandem/vpa-api';
import { canonicalLabelText, LabelSetInterner } from './label-set.js';
import {
  failure,
  type ModelFailure,
  type ModelResult,
  OK,
  type OomResult,
} from './model-result.js';
import { LabelIndexedMap } from './label-indexed-map.js';
import { NamespacedMap } from './namespaced-map.js';
import { objectKey } from './object-key.js';
import { SelectingVpas } from './selecting-vpas.js';
import { trackVpa, type TrackedVpa, type VpaTarget } from './tracked-vpa.js';
import {
  DEFAULT_STRATEGY_SETTINGS,
  liveStateOf,
  strategyOfContainer,
  type ContainerLiveState,
  type StrategySettings,
} from './vpa-strategy-state.js';

/** A pod as the loop lists it (phase ≠ Pending), reduced to what the recommender needs. */
export interface PodSnapshot {
  readonly namespace: string;
  readonly name: string;
  readonly labels: Labels;
  readonly phase: string;
  readonly containers: readonly {
    readonly name: string;
    /** The memory request (container status resources if reported, else spec), bytes. */
    readonly memoryRequestBytes: number;
    /**
     * What the user declared (the `tandem.dev/original-resources` the webhook recorded, else
     * the spec), when it requests both resources: what vivo starts from and caps at.
     */
    readonly declared?: ResourceAmounts;
  }[];
  readonly initContainerNames: readonly string[];
}

export interface ClusterModelOptions {
  readonly aggregation?: AggregationConfig;
  /** `--memory-saver`: track only pods whose labels some VPA of their namespace selects. */
  readonly memorySaver?: boolean;
  readonly strategies?: StrategySettings;
}

/** One live container: its sample bookkeeping, feeding the aggregate of its label set. */
interface TrackedContainer {
  readonly state: ContainerState;
  memoryRequestBytes: number;
  declared: ResourceAmounts | undefined;
  /** What its VPAs' strategies add to upstream's bookkeeping (see {@link ClusterModel.feedsOf}). */
  feeds: ContainerFeeds;
}

interface ContainerFeeds {
  /** The OOM bump-up of its controlling VPA's strategy; undefined: the aggregate's. */
  readonly bump: OomBump | undefined;
  /** The own states of the strategies (of every VPA selecting it) that keep one. */
  readonly live: readonly ContainerLiveState[];
  /**
   * The clock its controlling VPA's strategy ages the history by (tandem's, see
   * HistoryClock); undefined: real time, as upstream. Samples and OOM kills are filed at
   * its time, so the aggregate and its checkpoint live in history time.
   */
  readonly clock: HistoryClock | undefined;
}

/** What {@link ClusterModel.addUsage} did with a reading's two samples. */
export interface UsageResult {
  readonly cpu: boolean;
  readonly memory: boolean;
  /** The aggregate the container feeds; undefined when no container was found. */
  readonly aggregate: AggregateContainerState | undefined;
}

const NO_USAGE: UsageResult = Object.freeze({
  cpu: false,
  memory: false,
  aggregate: undefined,
});

type OomBump = Pick<AggregationConfig, 'oomBumpUpRatio' | 'oomMinBumpUpBytes'>;

/** Most pods have none: one set for all of them. */
const NO_INIT_CONTAINERS: ReadonlySet<string> = new Set();

/** A container that feeds nothing beyond its aggregate. */
const NO_FEEDS: ContainerFeeds = Object.freeze({
  bump: undefined,
  live: Object.freeze([]),
  clock: undefined,
});

interface TrackedPod {
  /** The snapshot this was built from: handed in again unchanged, it changes nothing. */
  readonly snapshot: PodSnapshot;
  /** {@link ClusterModel.garbageCollect} runs that removed aggregates, when this was built. */
  readonly collections: number;
  /** {@link ClusterModel.strategyEpoch} when this was built (its containers' feeds). */
  readonly strategyEpoch: number;
  readonly namespace: string;
  readonly labels: Labels;
  readonly labelText: string;
  readonly phase: string;
  readonly containers: Map<string, TrackedContainer>;
  readonly initContainerNames: ReadonlySet<string>;
}

/**
 * What every pod of one label set in one namespace shares when it is upserted: the VPAs
 * selecting it and, per container name, its aggregate and feeds. A workload's pods share a
 * label set (25,000 pods in 10,000 sets in the recommender-cycle bench), and working these
 * out for each pod was a fifth of a first cycle's pod loading. Dropped whenever a VPA, its
 * strategy state or the aggregates change ({@link ClusterModel.dropPlans}).
 */
interface LabelSetPlan {
  readonly labels: Labels;
  /** Their canonical text, one string for all the label set's pods. */
  readonly labelText: string;
  readonly vpas: readonly TrackedVpa[];
  /** tandem is upstream without the zero-peak quirk (packages/strategies/src/tandem.ts). */
  readonly zeroPeakIgnoresWindow: boolean;
  /** A handful at most: searched in order, cheaper than a Map per label set. */
  readonly containers: ContainerPlan[];
}

interface ContainerPlan {
  readonly name: string;
  readonly aggregate: TrackedAggregate;
  readonly feeds: ContainerFeeds;
}

interface TrackedAggregate {
  readonly namespace: string;
  readonly containerName: string;
  readonly labels: Labels;
  readonly labelText: string;
  readonly state: AggregateContainerState;
  /** The clock of the containers feeding it (see ContainerFeeds), for its expiry. */
  clock: HistoryClock | undefined;
}

/** Phases after which a pod no longer runs, so its aggregates stop being "contributive". */
const FINISHED_POD_PHASES: ReadonlySet<string> = new Set([
  'Succeeded',
  'Failed',
]);

/**
 * The recommender's in-memory picture of the cluster (upstream's ClusterState): pods and
 * their containers, usage aggregates keyed by (namespace, container name, pod label set),
 * and VPAs. It performs no I/O and reads no clock: the loop feeds it what it listed and
 * passes the time in.
 *
 * A VPA's aggregates are found by matching, not stored as links: an aggregate belongs to a
 * VPA when it is in the VPA's namespace and the VPA's selector matches its labels, which is
 * exactly the set upstream keeps linked.
 */
export class ClusterModel {
  readonly aggregation: AggregationConfig;
  readonly memorySaver: boolean;
  readonly strategies: StrategySettings;
  // Keys start with the namespace: VPAs look up only their own namespace's entries.
  private readonly pods = new LabelIndexedMap<TrackedPod>();
  private readonly aggregates = new LabelIndexedMap<TrackedAggregate>();
  private readonly vpas = new NamespacedMap<TrackedVpa>();
  private readonly labelSets = new LabelSetInterner();
  /**
   * The keys of the VPAs selecting each label set of a namespace, in key order, kept while
   * no VPA comes, goes or changes its selector (`selectionEpoch`): a workload's pods share a
   * label set, and testing every VPA of the namespace against every pod was the largest
   * part of a first cycle. Keys, not the tracked VPAs, which are renewed at every upsert.
   */
  private readonly selectingKeys = new Map<string, string[]>();
  /** {@link LabelSetPlan}s by namespace, then label text, while no VPA or aggregate changes. */
  private readonly plans = new Map<string, Map<string, LabelSetPlan>>();
  /** Which VPAs may select a label set; built anew when `selectionEpoch` moves on. */
  private selecting: SelectingVpas | undefined;
  private selectionEpoch = 0;
  private selectingEpoch = 0;
  /**
   * Snapshots found untracked (Pending, or selected by no VPA under the memory saver), with
   * the `selectionEpoch` they were found in: handed in again unchanged while no VPA came,
   * went or changed its selector, they are untracked again without interning their labels
   * (a `--memory-saver` replica lists every pod, most of them not its VPAs').
   */
  private readonly untrackedSnapshots = new WeakMap<PodSnapshot, number>();
  /**
   * Aggregates {@link lend} hands out, cleared before each use: the first `scratchInUse`
   * are lent at the moment. As many as the most container names merged at once.
   */
  private readonly scratch: AggregateContainerState[] = [];
  private scratchInUse = 0;
  /** How many garbage collections removed an aggregate (pods built before may feed one). */
  private collections = 0;
  /**
   * Bumped whenever what a pod's containers feed may have changed: a VPA came, went, or
   * changed its selector or strategy. Pods built before it resolve their feeds again.
   */
  private strategyEpoch = 0;

  constructor(options: ClusterModelOptions = {}) {
    this.aggregation = options.aggregation ?? DEFAULT_AGGREGATION_CONFIG;
    this.memorySaver = options.memorySaver ?? false;
    this.strategies = options.strategies ?? DEFAULT_STRATEGY_SETTINGS;
  }

  // ---------------------------------------------------------------------------------------
  // Pods

  /**
   * Adds or updates a pod and its containers; new aggregates start their expiry clock at
   * `nowMs`. Returns false when the pod is not tracked: Pending (upstream's pod lister skips
   * those) or, with the memory saver, selected by no VPA. A pod that stops being tracked is
   * removed. `key` is the pod's {@link objectKey}, for a caller that keeps it rather than
   * building it for every pod of every cycle, unchanged ones included.
   */
  upsertPod(
    pod: PodSnapshot,
    nowMs: number,
    key = objectKey(pod.namespace, pod.name),
  ): boolean {
    const previous = this.pods.get(key);
    // The loop hands over the very snapshot of a pod object that did not change: nothing to
    // do, unless garbage collection removed aggregates since, maybe one it feeds,
    // or a VPA came, went or changed its selector (the epoch), which may untrack it.
    if (
      previous?.snapshot === pod &&
      previous.collections === this.collections &&
      previous.strategyEpoch === this.strategyEpoch
    )
      return true;
    if (this.untrackedSnapshots.get(pod) === this.selectionEpoch)
      return this.untrack(key);
    if (pod.phase === 'Pending') return this.untrackSnapshot(pod, key);
    const plan = this.planOf(
      pod.namespace,
      pod.labels,
      canonicalLabelText(pod.labels),
    );
    const { labels, labelText } = plan;
    if (this.memorySaver && plan.vpas.length === 0)
      return this.untrackSnapshot(pod, key);
    // Containers keep their sample bookkeeping unless the pod moved to another label set,
    // or garbage collection removed their aggregate: then they start afresh on the aggregate
    // they belong to now (upstream keeps feeding the old one; see README, deviations).
    const reusable =
      previous?.labelText === labelText ? previous.containers : undefined;
    const containers = new Map<string, TrackedContainer>();
    for (const { name, memoryRequestBytes, declared } of pod.containers) {
      const kept = reusable?.get(name);
      const { aggregate, feeds } = this.containerPlan(
        plan,
        pod.namespace,
        name,
        labelText,
        nowMs,
      );
      if (kept !== undefined && aggregate.state === kept.state.aggregate) {
        kept.memoryRequestBytes = memoryRequestBytes;
        kept.declared = declared;
        kept.feeds = feeds;
        containers.set(name, kept);
        continue;
      }
      containers.set(name, {
        state: new ContainerState(aggregate.state, {
          zeroPeakIgnoresWindow: plan.zeroPeakIgnoresWindow,
        }),
        memoryRequestBytes,
        declared,
        feeds,
      });
    }
    this.pods.set(key, {
      snapshot: pod,
      collections: this.collections,
      strategyEpoch: this.strategyEpoch,
      namespace: pod.namespace,
      labels,
      labelText,
      phase: pod.phase,
      containers,
      initContainerNames:
        pod.initContainerNames.length === 0
          ? NO_INIT_CONTAINERS
          : new Set(pod.initContainerNames),
    });
    return true;
  }

  /** The {@link LabelSetPlan} of a namespace's label set, made at its first pod. */
  private planOf(
    namespace: string,
    podLabels: Labels,
    labelText: string,
  ): LabelSetPlan {
    let namespacePlans = this.plans.get(namespace);
    if (namespacePlans === undefined) {
      namespacePlans = new Map();
      this.plans.set(namespace, namespacePlans);
    }
    let plan = namespacePlans.get(labelText);
    if (plan === undefined) {
      const labels = this.labelSets.intern(podLabels, labelText);
      const vpas = this.vpasSelecting(namespace, labels, labelText);
      plan = {
        labels,
        labelText,
        vpas,
        zeroPeakIgnoresWindow: vpas[0]?.strategy.strategy.name !== 'tandem',
        containers: [],
      };
      namespacePlans.set(labelText, plan);
    }
    return plan;
  }

  /**
   * A container name's aggregate (made at `nowMs` if none holds its key) and feeds in a
   * label set's plan, worked out at the first pod that has it.
   */
  private containerPlan(
    plan: LabelSetPlan,
    namespace: string,
    containerName: string,
    labelText: string,
    nowMs: number,
  ): ContainerPlan {
    for (const found of plan.containers)
      if (found.name === containerName) return found;
    const key = aggregateKey(namespace, containerName, labelText);
    const feeds = this.feedsOf(plan.vpas, containerName);
    const aggregate =
      this.aggregates.get(key) ??
      this.newAggregate(
        key,
        { namespace, containerName, labels: plan.labels, labelText },
        nowMs,
      );
    aggregate.clock = feeds.clock;
    const found = { name: containerName, aggregate, feeds };
    plan.containers.push(found);
    return found;
  }

  /**
   * Forgets every {@link LabelSetPlan}: a VPA came, went or changed (its tracked object is
   * renewed at every upsert), a strategy state was loaded, or aggregates were collected.
   */
  private dropPlans(): void {
    // Every VPA upsert comes here (100,000 a cycle at issue 25's scale) and the map is
    // mostly empty then; clearing an empty Map still gives it a new table.
    if (this.plans.size > 0) this.plans.clear();
  }

  private untrack(podKey: string): false {
    this.pods.delete(podKey);
    return false;
  }

  private untrackSnapshot(pod: PodSnapshot, podKey: string): false {
    this.untrackedSnapshots.set(pod, this.selectionEpoch);
    return this.untrack(podKey);
  }

  /**
   * Drops every pod whose key is not listed (deleted, or back to Pending); aggregates stay
   * until GC. Returns how many were dropped.
   */
  removePodsNotIn(keys: Iterable<string>): number {
    const keep = new Set(keys);
    let removed = 0;
    for (const key of this.pods.keys()) {
      if (keep.has(key)) continue;
      this.pods.delete(key);
      removed += 1;
    }
    return removed;
  }

  /** Keys (`namespace/name`) of the tracked pods. */
  podKeys(): string[] {
    return [...this.pods.keys()];
  }

  /**
   * Feeds one usage sample of a pod's container. Samples of init containers are ignored, as
   * upstream drops them; stale, duplicate or negative samples are discarded by the container.
   */
  addSample(
    namespace: string,
    podName: string,
    containerName: string,
    sample: ContainerUsageSample,
  ): ModelResult {
    const found = this.findContainer(namespace, podName, containerName);
    if (typeof found === 'string')
      return missing(found, namespace, podName, containerName);
    return this.feed(found, sample, () =>
      where(namespace, podName, containerName),
    );
  }

  /**
   * One metrics.k8s.io reading of a container, its CPU then its memory sample at `timeMs`:
   * what two {@link addSample} calls do, with one lookup of the container. The loop feeds
   * every container of the cluster this way each cycle (500,000 at issue 25's scale), and
   * the lookup's key was the larger part of a sample's cost. `aggregate` is the one they
   * feed, undefined where no container is found.
   */
  addUsage(
    namespace: string,
    podName: string,
    containerName: string,
    timeMs: number,
    cpuMillicores: number,
    memoryBytes: number,
  ): UsageResult {
    const found = this.findContainer(namespace, podName, containerName);
    if (typeof found === 'string') return NO_USAGE;
    // Only whether each sample was used: no message made, and no closure to make one
    // (a first cycle runs this for every container while its code is still cold).
    const cpu = this.used(found, {
      timeMs,
      resource: 'cpu',
      usage: cpuMillicores,
    });
    const memory = this.used(found, {
      timeMs,
      resource: 'memory',
      usage: memoryBytes,
    });
    return { cpu, memory, aggregate: found.state.aggregate };
  }

  private feed(
    container: TrackedContainer,
    sample: ContainerUsageSample,
    at: () => string,
  ): ModelResult {
    try {
      return this.file(container, sample)
        ? OK
        : failure(
            'sample-discarded',
            `${sample.resource} sample of ${at()} at ${sample.timeMs} ms was discarded (negative, duplicate or out of order)`,
          );
    } catch (error) {
      return failure('invalid-input', (error as Error).message);
    }
  }

  /** {@link feed}'s answer as a boolean: was the sample used (bad input is not). */
  private used(
    container: TrackedContainer,
    sample: ContainerUsageSample,
  ): boolean {
    try {
      return this.file(container, sample);
    } catch {
      return false;
    }
  }

  /**
   * Files a sample with the container, on its controlling VPA's clock, and with every
   * strategy state it feeds; true when used. Throws what `ContainerState.addSample` throws.
   */
  private file(
    container: TrackedContainer,
    sample: ContainerUsageSample,
  ): boolean {
    const { clock } = container.feeds;
    const used = container.state.addSample(
      clock === undefined
        ? sample
        : { ...sample, timeMs: clock.sample(sample.timeMs) },
    );
    if (!used) return false;
    // Indexed: a for-of made an iterator and its results for each of a first cycle's
    // 100,000 samples while this code was still cold, most of them over an empty list.
    const { live } = container.feeds;
    for (let index = 0; index < live.length; index++) {
      const state = live[index]?.state;
      if (sample.resource === 'cpu') state?.addCpu(sample.timeMs, sample.usage);
      else state?.addMemory(sample.timeMs, sample.usage);
    }
    return true;
  }

  /**
   * The aggregate a container's samples feed, undefined where {@link addSample} finds no
   * container (unknown pod or container, init container). Only to be read.
   */
  aggregateOfContainer(
    namespace: string,
    podName: string,
    containerName: string,
  ): AggregateContainerState | undefined {
    const found = this.findContainer(namespace, podName, containerName);
    return typeof found === 'string' ? undefined : found.state.aggregate;
  }

  /**
   * Records an OOM kill of a container at `timeMs`. The memory it requested defaults to the
   * tracked request; the informer knows the request of the exact pod version that was killed,
   * so it may pass it. `capBytes` bounds the bump-up (see `ContainerState.recordOom`).
   */
  recordOom(
    namespace: string,
    podName: string,
    containerName: string,
    timeMs: number,
    requestedMemoryBytes?: number,
    capBytes?: number,
  ): OomResult {
    const found = this.findContainer(namespace, podName, containerName);
    if (typeof found === 'string')
      return missing(found, namespace, podName, containerName);
    const { state, memoryRequestBytes, feeds } = found;
    const requested = requestedMemoryBytes ?? memoryRequestBytes;
    try {
      const filedMemoryBytes = state.recordOom(
        feeds.clock?.sample(timeMs) ?? timeMs,
        requested,
        feeds.bump,
        capBytes,
      );
      for (const live of feeds.live) live.state.recordOom(timeMs, requested);
      return { ok: true, filedMemoryBytes };
    } catch (error) {
      const kind =
        error instanceof StaleOomError ? 'stale-oom' : 'invalid-input';
      return failure(
        kind,
        `${where(namespace, podName, containerName)}: ${(error as Error).message}`,
      );
    }
  }

  /**
   * The VPA whose strategy controls a tracked pod's bookkeeping (the first selecting it in
   * key order, as {@link ClusterModel.feedsOf} picks), undefined when none selects it.
   */
  controllingVpa(namespace: string, podName: string): TrackedVpa | undefined {
    const pod = this.pods.get(objectKey(namespace, podName));
    return pod === undefined
      ? undefined
      : this.vpasSelecting(namespace, pod.labels, pod.labelText)[0];
  }

  // ---------------------------------------------------------------------------------------
  // VPAs

  /**
   * Adds or updates a VPA with its resolved target. The history loaded from checkpoints is
   * kept across updates, including a selector change (upstream drops it there: pain point #7).
   */
  upsertVpa(object: VerticalPodAutoscaler, target: VpaTarget): ModelResult {
    const namespace = object.metadata?.namespace;
    const name = object.metadata?.name;
    if (!namespace || !name) {
      return failure(
        'invalid-input',
        'a VerticalPodAutoscaler needs metadata.namespace and metadata.name',
      );
    }
    const key = objectKey(namespace, name);
    const previous = this.vpas.get(key);
    const tracked = trackVpa(
      { key, namespace, name },
      object,
      target,
      previous,
      this.strategies,
    );
    if (
      previous?.strategy.live !== tracked.strategy.live ||
      previous.selectorText !== tracked.selectorText
    )
      this.strategyEpoch += 1;
    if (previous?.selectorText !== tracked.selectorText)
      this.selectionEpoch += 1;
    this.vpas.set(key, tracked);
    this.dropPlans();
    return OK;
  }

  /** Forgets every VPA whose key is not listed, with its loaded checkpoint history. */
  removeVpasNotIn(keys: Iterable<string>): void {
    const keep = new Set(keys);
    for (const key of this.vpas.keys()) {
      if (keep.has(key)) continue;
      this.vpas.delete(key);
      this.dropPlans();
      this.strategyEpoch += 1;
      this.selectionEpoch += 1;
    }
  }

  vpa(key: string): TrackedVpa | undefined {
    return this.vpas.get(key);
  }

  vpaKeys(): string[] {
    return [...this.vpas.keys()];
  }

  /**
   * Loads a checkpoint's `status` as the VPA's starting history for `containerName`
   * (replacing an earlier one), and the state its strategy keeps beside it
   * (`strategyState`, the checkpoint's `tandem.dev/strategy-state` annotation). A corrupt
   * status changes nothing and comes back as an error naming the bad field; a corrupt
   * strategy state too, after the status was loaded. A state written for another strategy
   * or other parameters is left unused: that state starts afresh.
   */
  loadCheckpoint(
    vpaKey: string,
    containerName: string,
    status: unknown,
    strategyState?: string,
  ): ModelResult {
    const vpa = this.vpas.get(vpaKey);
    if (vpa === undefined) {
      return failure('unknown-vpa', `no VPA ${vpaKey} for its checkpoint`);
    }
    try {
      const state = AggregateContainerState.fromCheckpoint(
        status,
        this.aggregation,
      );
      vpa.initialState.set(containerName, state);
      if (strategyState !== undefined)
        this.loadStrategyState(vpa, containerName, strategyState);
      return OK;
    } catch (error) {
      if (!(error instanceof CheckpointError)) throw error;
      return failure(
        'corrupt-checkpoint',
        `checkpoint of VPA ${vpaKey} container ${containerName}: ${error.message}`,
      );
    }
  }

  private loadStrategyState(
    vpa: TrackedVpa,
    containerName: string,
    text: string,
  ): void {
    const strategy = strategyOfContainer(
      vpa.object,
      vpa.strategy,
      containerName,
      this.strategies,
    );
    const decoded = decodeStrategyState(strategy, text);
    if ('stale' in decoded) return;
    vpa.strategy.live.set(containerName, { strategy, state: decoded.state });
    this.dropPlans();
    this.strategyEpoch += 1;
  }

  /**
   * What each container name of the VPA's pods declared (the first pod in key order that
   * declares it), for strategies that start from or cap at it.
   */
  declaredOfVpa(vpaKey: string): Map<string, ResourceAmounts> {
    const declared = new Map<string, ResourceAmounts>();
    const vpa = this.vpas.get(vpaKey);
    if (vpa === undefined) return declared;
    const pods = [...this.selectedBy(this.pods, vpa)];
    pods.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    for (const [, pod] of pods)
      for (const [name, container] of pod.containers)
        if (container.declared !== undefined && !declared.has(name))
          declared.set(name, container.declared);
    return declared;
  }

  /** How many tracked pods the VPA selects (upstream's PodCount, behind NoPodsMatched). */
  matchingPodCount(vpaKey: string): number {
    const vpa = this.vpas.get(vpaKey);
    if (vpa === undefined) return 0;
    return vpa.podSelector === undefined
      ? 0
      : this.pods.countSelectedBy(
          vpa.namespace,
          vpa.podSelector,
          vpa.requiredLabel,
        );
  }

  /**
   * The VPA's history per container name, as the recommendation uses it: every aggregate it
   * selects merged into a fresh one, then its checkpointed history merged in. Containers
   * whose policy mode is Off, and containers without any CPU sample, are left out (upstream's
   * GetContainerNameToAggregateStateMap), so the per-pod minimum is split over the rest.
   */
  aggregatesForVpa(vpaKey: string): Map<string, AggregateContainerState> {
    return this.recommendable(vpaKey, this.mergedAggregatesForVpa(vpaKey));
  }

  /**
   * Every container name's merged history, without filtering (what checkpoints save). The
   * merged aggregates are new objects; the model's own are only read. Aggregates merge in
   * key order, so the result does not depend on insertion order.
   */
  mergedAggregatesForVpa(vpaKey: string): Map<string, AggregateContainerState> {
    return this.mergeForVpa(
      vpaKey,
      () => new AggregateContainerState(GO_ZERO_TIME_MS, this.aggregation),
    );
  }

  /**
   * {@link aggregatesForVpa}'s answer handed to `use`, in aggregates the model lends for
   * that call only (`use` must not keep them): the cycle merges every VPA's history twice
   * (its status, its checkpoints) and reads it at once. Merging was a fifth of a steady
   * cycle at 100,000 VPAs, and building the fresh aggregates (two histograms each) a third
   * of that.
   */
  lendAggregatesForVpa<T>(
    vpaKey: string,
    use: (merged: ReadonlyMap<string, AggregateContainerState>) => T,
  ): T {
    return this.lend((take) =>
      use(this.recommendable(vpaKey, this.mergeForVpa(vpaKey, take))),
    );
  }

  /** {@link mergedAggregatesForVpa}'s answer, lent as {@link lendAggregatesForVpa}'s. */
  lendMergedAggregatesForVpa<T>(
    vpaKey: string,
    use: (merged: Map<string, AggregateContainerState>) => T,
  ): T {
    return this.lend((take) => use(this.mergeForVpa(vpaKey, take)));
  }

  /**
   * Runs `work` with a supply of cleared aggregates from {@link scratch}, each handed out
   * once per call; a call made inside `work` takes the ones after those (nothing is lent
   * twice at once).
   */
  private lend<T>(work: (take: () => AggregateContainerState) => T): T {
    const first = this.scratchInUse;
    const take = () => {
      let state = this.scratch[this.scratchInUse];
      if (state === undefined) {
        state = new AggregateContainerState(GO_ZERO_TIME_MS, this.aggregation);
        this.scratch.push(state);
      } else state.clear();
      this.scratchInUse += 1;
      return state;
    };
    try {
      return work(take);
    } finally {
      this.scratchInUse = first;
    }
  }

  /** Leaves out of `merged` the containers a recommendation skips (see {@link aggregatesForVpa}). */
  private recommendable(
    vpaKey: string,
    merged: Map<string, AggregateContainerState>,
  ): Map<string, AggregateContainerState> {
    const vpa = this.vpas.get(vpaKey);
    if (vpa === undefined) return merged;
    for (const [containerName, state] of merged) {
      const mode = getContainerPolicy(vpa.object, containerName)?.mode;
      if (mode === ContainerScalingMode.Off || state.isEmpty()) {
        merged.delete(containerName);
      }
    }
    return merged;
  }

  /** Merges the VPA's aggregates, in key order, then its checkpointed history, into `take`'s. */
  private mergeForVpa(
    vpaKey: string,
    take: () => AggregateContainerState,
  ): Map<string, AggregateContainerState> {
    const merged = new Map<string, AggregateContainerState>();
    const vpa = this.vpas.get(vpaKey);
    if (vpa === undefined) return merged;
    for (const aggregate of valuesInKeyOrder(
      this.selectedBy(this.aggregates, vpa),
    ))
      mergeInto(merged, aggregate.containerName, aggregate.state, take);
    for (const [containerName, state] of vpa.initialState)
      mergeInto(merged, containerName, state, take);
    return merged;
  }

  /**
   * The model's own aggregates the VPA selects, with their container names: the links
   * upstream keeps from a VPA to its aggregates. They are only to be read.
   */
  aggregatesOfVpa(vpaKey: string): {
    readonly containerName: string;
    readonly state: AggregateContainerState;
  }[] {
    const vpa = this.vpas.get(vpaKey);
    if (vpa === undefined) return [];
    const linked = [];
    for (const [, { containerName, state }] of this.selectedBy(
      this.aggregates,
      vpa,
    ))
      linked.push({ containerName, state });
    return linked;
  }

  /**
   * Live containers of the pods the VPA selects, with their current memory window, so the
   * checkpoint writer can leave the window's peak out.
   */
  forEachLiveContainerOfVpa(
    vpaKey: string,
    visit: (
      containerName: string,
      state: ContainerState,
      /** The clock its window's times are on; undefined: real time. */
      clock: HistoryClock | undefined,
    ) => void,
  ): void {
    const vpa = this.vpas.get(vpaKey);
    if (vpa === undefined) return;
    // Visited, not listed: a list of 500,000 containers a cycle at 100,000 VPAs was a
    // twentieth of what a steady cycle allocated.
    for (const [, pod] of this.selectedBy(this.pods, vpa))
      for (const [containerName, { state, feeds }] of pod.containers)
        visit(containerName, state, feeds.clock);
  }

  // ---------------------------------------------------------------------------------------
  // Garbage collection

  /** Number of aggregates held (a gauge for the loop, and for tests). */
  get aggregateCount(): number {
    return this.aggregates.size;
  }

  /**
   * Removes aggregates that expired at `nowMs` (no CPU sample for interval × count, 8 days by
   * default), and empty ones no live container feeds. Upstream keeps an empty aggregate also
   * while the controller of a finished pod still exists; without API access this model counts
   * a finished pod's controller as existing while a VPA with a resolved target selects it.
   * Upstream runs this at most hourly; the loop decides when. Returns the removed count.
   */
  garbageCollect(nowMs: number): number {
    this.dropPlans();
    const contributive = this.contributiveAggregateKeys();
    let removed = 0;
    for (const [key, { state, clock }] of this.aggregates) {
      // An aggregate on a history clock expires after as long a silence as any other.
      if (
        (state.isEmpty() && !contributive.has(key)) ||
        state.isExpired(clock?.at(nowMs) ?? nowMs)
      ) {
        this.aggregates.delete(key);
        removed += 1;
      }
    }
    // Pods feed only aggregates still held when none went: they stay as built. Counting
    // every run made the next cycle rebuild all 25,000 pods of the recommender-cycle bench
    // after its first cycle's collection (220-290 ms against 26-40 ms), and hourly after.
    if (removed > 0) this.collections += 1;
    const inUse = new Set<string>();
    for (const { labelText } of this.aggregates.values()) inUse.add(labelText);
    for (const { labelText } of this.pods.values()) inUse.add(labelText);
    this.labelSets.retainOnly(inUse);
    // Label sets of pods long gone (a Job's, a StatefulSet's) would otherwise stay here.
    this.selectingKeys.clear();
    return removed;
  }

  private contributiveAggregateKeys(): Set<string> {
    const keys = new Set<string>();
    for (const pod of this.pods.values()) {
      const active = !FINISHED_POD_PHASES.has(pod.phase);
      if (
        !active &&
        this.vpasSelecting(pod.namespace, pod.labels, pod.labelText).length ===
          0
      ) {
        continue;
      }
      for (const containerName of pod.containers.keys()) {
        keys.add(aggregateKey(pod.namespace, containerName, pod.labelText));
      }
    }
    return keys;
  }

  // ---------------------------------------------------------------------------------------

  /** A new aggregate under `key`, its expiry clock started at `nowMs`. */
  private newAggregate(
    key: string,
    where: Pick<
      TrackedAggregate,
      'namespace' | 'containerName' | 'labels' | 'labelText'
    >,
    nowMs: number,
  ): TrackedAggregate {
    const aggregate: TrackedAggregate = {
      namespace: where.namespace,
      containerName: where.containerName,
      labels: where.labels,
      labelText: where.labelText,
      state: new AggregateContainerState(nowMs, this.aggregation),
      clock: undefined,
    };
    this.aggregates.set(key, aggregate);
    return aggregate;
  }

  /** The VPAs selecting a pod, in key order: the first one's strategy controls its bookkeeping. */
  private vpasSelecting(
    namespace: string,
    labels: Labels,
    labelText: string,
  ): TrackedVpa[] {
    if (
      this.selecting === undefined ||
      this.selectingEpoch !== this.selectionEpoch
    ) {
      this.selectingKeys.clear();
      this.selecting = new SelectingVpas(this.vpas.values());
      this.selectingEpoch = this.selectionEpoch;
    }
    const cacheKey = `${namespace}\u0000${labelText}`;
    let keys = this.selectingKeys.get(cacheKey);
    if (keys === undefined) {
      keys = this.selecting.keysSelecting(namespace, labels);
      this.selectingKeys.set(cacheKey, keys);
    }
    const vpas: TrackedVpa[] = [];
    for (const key of keys) {
      const vpa = this.vpas.get(key);
      if (vpa !== undefined) vpas.push(vpa);
    }
    return vpas;
  }

  /**
   * What a container feeds beyond its aggregate: the OOM bump-up of its first VPA's
   * strategy (its parameter, or upstream's per-container field that wins over it), and the
   * own state of every selecting VPA whose strategy keeps one.
   */
  private feedsOf(
    vpas: readonly TrackedVpa[],
    containerName: string,
  ): ContainerFeeds {
    const [first] = vpas;
    const parameters =
      first === undefined
        ? {}
        : strategyOfContainer(
            first.object,
            first.strategy,
            containerName,
            this.strategies,
          ).parameters;
    const ratio = parameters['oom-bump-up-ratio'];
    const minimum = parameters['oom-min-bump-up'];
    const live = [];
    let clock: HistoryClock | undefined;
    for (const vpa of vpas) {
      const state = liveStateOf(
        vpa.object,
        vpa.strategy,
        containerName,
        this.strategies,
      );
      if (state === undefined) continue;
      live.push(state);
      if (vpa === first) clock = state.state.clock;
    }
    // The aggregate's own bump-up unless the strategy's differs: most containers then
    // share one empty value (50,000 of them in the recommender-cycle bench).
    const bump =
      typeof ratio === 'number' &&
      typeof minimum === 'number' &&
      (ratio !== this.aggregation.oomBumpUpRatio ||
        minimum !== this.aggregation.oomMinBumpUpBytes)
        ? { oomBumpUpRatio: ratio, oomMinBumpUpBytes: minimum }
        : undefined;
    return bump === undefined && live.length === 0
      ? NO_FEEDS
      : { bump, live, clock };
  }

  /** The pods or aggregates a VPA selects: its namespace's entries its selector matches. */
  private selectedBy<V extends TrackedPod | TrackedAggregate>(
    entries: LabelIndexedMap<V>,
    vpa: TrackedVpa,
  ): Iterable<[string, V]> {
    return vpa.podSelector === undefined
      ? []
      : entries.selectedBy(vpa.namespace, vpa.podSelector, vpa.requiredLabel);
  }

  /**
   * The tracked container, or why there is none, without allocating either way: every
   * sample of every listed container comes here, those of pods a `--memory-saver` replica
   * does not track too.
   */
  private findContainer(
    namespace: string,
    podName: string,
    containerName: string,
  ): TrackedContainer | MissingContainer {
    const pod = this.pods.get(objectKey(namespace, podName));
    if (pod === undefined) return 'unknown-pod';
    if (pod.initContainerNames.has(containerName)) return 'init-container';
    return pod.containers.get(containerName) ?? 'unknown-container';
  }
}

type MissingContainer = 'unknown-pod' | 'init-container' | 'unknown-container';

const MISSING_CONTAINER: Record<MissingContainer, string> = {
  'unknown-pod': 'pod not tracked',
  'init-container': 'init containers are not modelled',
  'unknown-container': 'no such container',
};

function missing(
  kind: MissingContainer,
  namespace: string,
  podName: string,
  containerName: string,
): ModelFailure {
  return failure(
    kind,
    `${where(namespace, podName, containerName)}: ${MISSING_CONTAINER[kind]}`,
  );
}

/** A container as messages name it. */
function where(
  namespace: string,
  podName: string,
  containerName: string,
): string {
  return `container ${containerName} of pod ${objectKey(namespace, podName)}`;
}

/**
 * The values of `entries` in key order: one label set's entries already in that order (a
 * single-container workload's, or one whose containers were first seen in name order) as
 * they are, any others copied and sorted. Copying and sorting every VPA's selection twice a
 * cycle was a tenth of a steady cycle's allocation at 10,000 VPAs; the values, not the
 * entries' [key, value] pairs, as those were one array per aggregate merged.
 */
function valuesInKeyOrder<V>(entries: Iterable<[string, V]>): Iterable<V> {
  if (entries instanceof Map && ascending(entries.keys()))
    return (entries as Map<string, V>).values();
  return [...entries]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, value]) => value);
}

/** Merges `state` into `merged`'s aggregate for `containerName`, taking one if it has none. */
function mergeInto(
  merged: Map<string, AggregateContainerState>,
  containerName: string,
  state: AggregateContainerState,
  take: () => AggregateContainerState,
): void {
  let target = merged.get(containerName);
  if (target === undefined) {
    target = take();
    merged.set(containerName, target);
  }
  target.merge(state);
}

function ascending(keys: Iterable<string>): boolean {
  let previous: string | undefined;
  for (const key of keys) {
    if (previous !== undefined && key < previous) return false;
    previous = key;
  }
  return true;
}

function aggregateKey(
  namespace: string,
  containerName: string,
  labelText: string,
): string {
  // '/' cannot occur in a namespace or container name, so the key is unambiguous.
  return `${namespace}/${containerName}/${labelText}`;
}
