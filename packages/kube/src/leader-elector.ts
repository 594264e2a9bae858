import {
  CoordinationV1Api,
  type KubeConfig,
  type V1Lease,
} from '@kubernetes/client-node';
import { httpStatusOf } from './api-errors.js';
import {
  acquiredLeaseSpec,
  DEFAULT_LEADER_ELECTION_TIMINGS,
  leaseAvailability,
  leaseHolder,
  releasedLeaseSpec,
  RETRY_JITTER_FACTOR,
  stepDownReason,
  validateTimings,
  type LeaseAvailability,
  type StepDownReason,
} from './lease-decisions.js';
import { LoopStop } from './loop-stop.js';

/** The three Lease calls the elector makes (a subset of client-node's CoordinationV1Api). */
export type LeaseClient = Pick<
  CoordinationV1Api,
  'readNamespacedLease' | 'createNamespacedLease' | 'replaceNamespacedLease'
>;

export interface LeaderElectorOptions {
  /** Lease name, e.g. `vpa-recommender-lease`. */
  name: string;
  /** Lease namespace, e.g. `kube-system`. */
  namespace: string;
  /** This candidate's identity, unique among candidates (e.g. the pod name). */
  identity: string;
  kubeConfig?: KubeConfig;
  /** Replaces the client made from kubeConfig. */
  client?: LeaseClient;
  /** Default 15 000; must be whole seconds. */
  leaseDurationMs?: number;
  /** Default 10 000. */
  renewDeadlineMs?: number;
  /** Default 2 000. */
  retryPeriodMs?: number;
  onStartedLeading?: () => void;
  onStoppedLeading?: (reason: StepDownReason | 'stopped') => void;
  /** Called when the observed holder changes (undefined: nobody holds the Lease). */
  onNewLeader?: (identity: string | undefined) => void;
  /** Every failed API call, for logs; the elector retries by itself. */
  onError?: (error: unknown) => void;
  now?: () => number;
  random?: () => number;
}

type Attempt =
  | {
      /** The write succeeded: `identity` holds the Lease. */
      ok: true;
      availability: LeaseAvailability;
      /** The renewTime written, read from the local clock before the write was sent. */
      renewedAtMs: number;
    }
  | {
      ok: false;
      /** What was observed, when the Lease could be read. */
      availability: LeaseAvailability | undefined;
    };

/**
 * Leader election on a `coordination.k8s.io/v1` Lease, with client-go's semantics:
 * candidates retry every retryPeriod (with jitter) and take the Lease when it is free or
 * expired; the leader renews every retryPeriod and steps down when it cannot renew for
 * renewDeadline or sees another holder; `stop()` releases the Lease so a successor takes
 * over at its next retry. Writes use the Lease's resourceVersion: a 409 is a lost race.
 */
export class LeaderElector {
  private readonly client: LeaseClient;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly now: () => number;
  private readonly random: () => number;
  private leading = false;
  private lastRenewMs = 0;
  private observedHolder: string | undefined;
  private readonly loop = new LoopStop();
  private running: Promise<void> | undefined;

  constructor(private readonly options: LeaderElectorOptions) {
    if (options.client !== undefined) this.client = options.client;
    else if (options.kubeConfig !== undefined)
      this.client = options.kubeConfig.makeApiClient(CoordinationV1Api);
    else throw new Error('LeaderElector needs either kubeConfig or client');
    this.leaseDurationMs =
      options.leaseDurationMs ??
      DEFAULT_LEADER_ELECTION_TIMINGS.leaseDurationMs;
    this.renewDeadlineMs =
      options.renewDeadlineMs ??
      DEFAULT_LEADER_ELECTION_TIMINGS.renewDeadlineMs;
    this.retryPeriodMs =
      options.retryPeriodMs ?? DEFAULT_LEADER_ELECTION_TIMINGS.retryPeriodMs;
    validateTimings({
      leaseDurationMs: this.leaseDurationMs,
      renewDeadlineMs: this.renewDeadlineMs,
      retryPeriodMs: this.retryPeriodMs,
    });
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
  }

  /**
   * Whether the Lease is provably held now, by the local clock: leading, and the last
   * successful acquire or renew stamped less than renewDeadline ago. Bounded by renewDeadline,
   * not leaseDuration, as client-go's leaderelection.go (`LeaderElector.renew`) bounds a
   * leader's retries: past renewDeadline a client-go leader gives up, and the gap up to
   * leaseDuration, when candidates may take over, is the margin for clock-rate skew between
   * replicas and for a write already on the wire when this was checked. So a process
   * resumed after a pause (SIGSTOP, a stalled VM) knows it lost the lead at once, before its
   * elector's next retry runs; that retry then steps down whatever it observes.
   */
  get isLeader(): boolean {
    return this.leading && this.now() - this.lastRenewMs < this.renewDeadlineMs;
  }

  /** The holder seen at the last read of the Lease. */
  get leader(): string | undefined {
    return this.observedHolder;
  }

  /** Starts campaigning in the background; returns at once. */
  start(): void {
    if (this.loop.stopped) throw new Error('the leader elector was stopped');
    this.running ??= this.run();
  }

  /** Stops campaigning; a leader releases the Lease and is told it stopped leading. */
  async stop(): Promise<void> {
    if (this.loop.stopped) return this.running;
    this.loop.stop();
    await this.running;
    if (this.leading) {
      this.leading = false;
      await this.release();
      this.callback(() => this.options.onStoppedLeading?.('stopped'));
    }
  }

  private async run(): Promise<void> {
    while (!this.loop.stopped) {
      if (!this.leading) {
        const attempt = await this.tryAcquireOrRenew();
        if (this.loop.stopped) {
          // Won just as stop() was called: keep `leading` so stop() releases it.
          if (attempt.ok) this.leading = true;
          return;
        }
        if (attempt.ok) {
          this.leading = true;
          this.lastRenewMs = attempt.renewedAtMs;
          this.callback(() => this.options.onStartedLeading?.());
          continue;
        }
        await this.loop.sleep(
          this.retryPeriodMs * (1 + (RETRY_JITTER_FACTOR - 1) * this.random()),
        );
        continue;
      }
      await this.loop.sleep(this.retryPeriodMs);
      if (this.loop.stopped) return;
      const remaining = this.lastRenewMs + this.renewDeadlineMs - this.now();
      const attempt = await withTimeout(
        this.tryAcquireOrRenew(),
        Math.max(0, remaining),
        { ok: false, availability: undefined },
      );
      if (this.loop.stopped) return;
      // A renewal that lands after isLeader lapsed does not revive the term: isLeader never
      // turns true again within one term, and the step-down below follows it.
      if (attempt.ok && this.isLeader) this.lastRenewMs = attempt.renewedAtMs;
      const reason = stepDownReason({
        availability: attempt.availability,
        lastRenewMs: this.lastRenewMs,
        nowMs: this.now(),
        renewDeadlineMs: this.renewDeadlineMs,
      });
      if (reason !== undefined) {
        this.leading = false;
        this.callback(() => this.options.onStoppedLeading?.(reason));
      }
    }
  }

  private async tryAcquireOrRenew(): Promise<Attempt> {
    const { name, namespace, identity } = this.options;
    let current: V1Lease | undefined;
    try {
      current = await this.client.readNamespacedLease({ name, namespace });
    } catch (error) {
      if (httpStatusOf(error) !== 404) {
        this.options.onError?.(error);
        return { ok: false, availability: undefined };
      }
    }
    const nowMs = this.now();
    if (current === undefined) {
      try {
        await this.client.createNamespacedLease({
          namespace,
          body: {
            metadata: { name, namespace },
            spec: acquiredLeaseSpec(
              undefined,
              identity,
              nowMs,
              this.leaseDurationMs,
            ),
          },
        });
        this.observe(identity);
        return { ok: true, availability: 'free', renewedAtMs: nowMs };
      } catch (error) {
        if (httpStatusOf(error) !== 409) this.options.onError?.(error);
        return { ok: false, availability: undefined };
      }
    }
    const availability = leaseAvailability(current.spec, identity, nowMs);
    this.observe(leaseHolder(current.spec));
    if (availability === 'held-by-other') return { ok: false, availability };
    try {
      await this.client.replaceNamespacedLease({
        name,
        namespace,
        body: {
          ...current,
          spec: acquiredLeaseSpec(
            current.spec,
            identity,
            nowMs,
            this.leaseDurationMs,
          ),
        },
      });
      this.observe(identity);
      return { ok: true, availability, renewedAtMs: nowMs };
    } catch (error) {
      // 409: someone else wrote the Lease since we read it, a lost race.
      if (httpStatusOf(error) !== 409) this.options.onError?.(error);
      return { ok: false, availability };
    }
  }

  private async release(): Promise<void> {
    const { name, namespace, identity } = this.options;
    try {
      const current = await this.client.readNamespacedLease({
        name,
        namespace,
      });
      if (leaseHolder(current.spec) !== identity) return;
      await this.client.replaceNamespacedLease({
        name,
        namespace,
        body: { ...current, spec: releasedLeaseSpec(current.spec, this.now()) },
      });
      this.observe(undefined);
    } catch (error) {
      // The Lease expires by itself; a failed release only delays the successor.
      this.options.onError?.(error);
    }
  }

  private observe(holder: string | undefined): void {
    if (holder === this.observedHolder) return;
    this.observedHolder = holder;
    this.callback(() => this.options.onNewLeader?.(holder));
  }

  private callback(fn: () => void): void {
    try {
      fn();
    } catch (error) {
      this.options.onError?.(error);
    }
  }
}

function withTimeout<T>(
  promise: Promise<T>,
  ms: number,
  fallback: T,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
