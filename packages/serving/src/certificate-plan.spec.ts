import fc from 'fast-check';
import {
  bundleOf,
  checkIntervalMs,
  leafNotAfterMs,
  leafRenewal,
  lifetimesProblem,
  planAuthorities,
  type Authority,
  type AuthorityState,
  type CertificateLifetimes,
  type Leaf,
} from './certificate-plan.js';

const S = 1000;
const H = 3600 * S;
// The defaults: --ca-validity=8760h --cert-validity=720h --ca-overlap=1h.
const DEFAULTS: CertificateLifetimes = {
  caValidityMs: 8760 * H,
  certValidityMs: 720 * H,
  caOverlapMs: H,
};
const T0 = Date.parse('2026-01-01T00:00:00Z');

/** CAs without keys: the plan only reads an identity and notAfter. */
function authorities(lifetimes: CertificateLifetimes) {
  let made = 0;
  return (nowMs: number): Authority => ({
    id: `ca-${++made}`,
    notAfterMs: nowMs + lifetimes.caValidityMs,
  });
}

const ids = (state: AuthorityState<Authority>) =>
  bundleOf(state).map((ca) => ca.id);

describe('planAuthorities', () => {
  it('creates one signing CA when nothing is stored', () => {
    const { state, changes } = planAuthorities(
      undefined,
      T0,
      DEFAULTS,
      authorities(DEFAULTS),
    );
    expect(changes).toEqual(['created']);
    expect(state).toEqual({
      signing: { id: 'ca-1', notAfterMs: T0 + DEFAULTS.caValidityMs },
    });
  });

  it('keeps a stored CA with more than a third of its life left: a second replica adopts it', () => {
    const stored = { signing: { id: 'ca-0', notAfterMs: T0 + 5000 * H } };
    expect(
      planAuthorities(stored, T0, DEFAULTS, authorities(DEFAULTS)),
    ).toEqual({ state: stored, changes: [] });
  });

  it('stages a next CA for one made under a longer --ca-validity, and only for that', () => {
    const shorter = { ...DEFAULTS, caValidityMs: 90 * S, caOverlapMs: 10 * S };
    const newCa = authorities(shorter);
    const yearLong = { signing: { id: 'ca-0', notAfterMs: T0 + 8760 * H } };
    const { state, changes } = planAuthorities(yearLong, T0, shorter, newCa);
    expect(changes).toEqual(['staged']);
    expect(ids(state).sort()).toEqual(['ca-0', 'ca-1']);
    // Its successor, once signing, is within the lifetime (a replica whose clock runs an
    // overlap behind included): no further rotation until a third of it is left.
    const successor = { signing: { id: 'ca-1', notAfterMs: T0 + 90 * S } };
    for (const nowMs of [T0 - 10 * S, T0, T0 + 59 * S])
      expect(planAuthorities(successor, nowMs, shorter, newCa).changes).toEqual(
        [],
      );
  });

  it('rotates through stage, promote and retire, with the bundle at each step', () => {
    const newCa = authorities(DEFAULTS);
    let { state } = planAuthorities(undefined, T0, DEFAULTS, newCa);
    const step = (atMs: number) => {
      const planned = planAuthorities(state, atMs, DEFAULTS, newCa);
      state = planned.state;
      return {
        changes: planned.changes,
        bundle: ids(state),
        signing: state.signing.id,
      };
    };
    const staging = T0 + ((8760 * 2) / 3) * H;
    expect(step(staging - S)).toEqual({
      changes: [],
      bundle: ['ca-1'],
      signing: 'ca-1',
    });
    expect(step(staging + S)).toEqual({
      changes: ['staged'],
      bundle: ['ca-1', 'ca-2'],
      signing: 'ca-1',
    });
    expect(step(staging + H)).toEqual({
      changes: [],
      bundle: ['ca-1', 'ca-2'],
      signing: 'ca-1',
    });
    expect(step(staging + H + S)).toEqual({
      changes: ['promoted'],
      bundle: ['ca-2', 'ca-1'],
      signing: 'ca-2',
    });
    expect(step(staging + 2 * H)).toEqual({
      changes: [],
      bundle: ['ca-2', 'ca-1'],
      signing: 'ca-2',
    });
    expect(step(staging + 2 * H + S)).toEqual({
      changes: ['retired'],
      bundle: ['ca-2'],
      signing: 'ca-2',
    });
  });

  it('replaces a signing CA past its notAfter at once: no bundle could keep it working', () => {
    const stored = {
      signing: { id: 'ca-0', notAfterMs: T0 },
      next: { ca: { id: 'ca-x', notAfterMs: T0 + H }, stagedAtMs: T0 - H },
    };
    const { state, changes } = planAuthorities(
      stored,
      T0,
      DEFAULTS,
      authorities(DEFAULTS),
    );
    expect(changes).toEqual(['replaced-expired']);
    expect(ids(state)).toEqual(['ca-1']);
  });

  it('after a long stop, catches up one overlap at a time', () => {
    const stored = {
      signing: { id: 'ca-0', notAfterMs: T0 + 100 * H },
      next: {
        ca: { id: 'ca-1', notAfterMs: T0 + 9000 * H },
        stagedAtMs: T0 - 50 * H,
      },
    };
    const first = planAuthorities(stored, T0, DEFAULTS, authorities(DEFAULTS));
    expect(first.changes).toEqual(['promoted']);
    expect(first.state.previous).toEqual({
      ca: stored.signing,
      promotedAtMs: T0,
    });
  });
});

describe('leafRenewal and leafNotAfterMs', () => {
  const signing = { id: 'ca-1', notAfterMs: T0 + 8760 * H };
  const leaf = (notAfterMs: number, issuerId = 'ca-1'): Leaf => ({
    issuerId,
    notAfterMs,
  });

  it('issues the first one, renews on another CA and with less than a third left', () => {
    expect(leafRenewal(undefined, signing, T0, DEFAULTS)).toBe('first');
    expect(leafRenewal(leaf(T0 + 500 * H, 'ca-0'), signing, T0, DEFAULTS)).toBe(
      'authority-changed',
    );
    expect(
      leafRenewal(leaf(T0 + 240 * H), signing, T0, DEFAULTS),
    ).toBeUndefined();
    expect(leafRenewal(leaf(T0 + 240 * H - S), signing, T0, DEFAULTS)).toBe(
      'expiring',
    );
  });

  it('never lets a serving certificate outlive its CA', () => {
    expect(leafNotAfterMs(signing, T0, DEFAULTS)).toBe(T0 + 720 * H);
    const ending = { id: 'ca-1', notAfterMs: T0 + 100 * H };
    expect(leafNotAfterMs(ending, T0, DEFAULTS)).toBe(T0 + 100 * H);
  });
});

describe('lifetimesProblem', () => {
  it('accepts the defaults and the e2e lifetimes', () => {
    expect(lifetimesProblem(DEFAULTS)).toBeUndefined();
    expect(
      lifetimesProblem({
        caValidityMs: 90 * S,
        certValidityMs: 30 * S,
        caOverlapMs: 10 * S,
      }),
    ).toBeUndefined();
  });

  it.each([
    [
      { caValidityMs: 6 * H, certValidityMs: H, caOverlapMs: H },
      /sixth of --ca-validity/,
    ],
    [
      { caValidityMs: 30 * H, certValidityMs: 28 * H, caOverlapMs: H },
      /--cert-validity must be less/,
    ],
    [
      { caValidityMs: 300 * H, certValidityMs: 100 * H, caOverlapMs: 90 * S },
      /twice the check interval/,
    ],
  ])('refuses %j', (lifetimes, message) => {
    expect(lifetimesProblem(lifetimes)).toMatch(message);
  });
});

/**
 * Replicas sharing one store, each checking at its own pace (at most a check interval
 * apart), some checks racing another replica's between read and write, as the runtime
 * does (a conflict re-reads and adopts). Each replica publishes its bundle when it
 * changes, as the webhook patches its caBundle when the bundle file changes.
 */
function simulate(
  lifetimes: CertificateLifetimes,
  replicaCount: number,
  paces: readonly number[],
  races: readonly boolean[],
): string[] {
  const newCa = authorities(lifetimes);
  const interval = checkIntervalMs(lifetimes);
  const store: { state?: AuthorityState<Authority>; version: number } = {
    version: 0,
  };
  const cas = new Map<string, Authority>();
  let firstCa: string | undefined;
  const published = new Map<string, number>(); // CA id -> published continuously since
  const replicas = Array.from({ length: replicaCount }, () => ({
    nextCheckMs: T0,
    leaf: undefined as (Leaf & { servedSinceMs: number }) | undefined,
    signing: '',
    bundle: '',
  }));
  const violations: string[] = [];
  let nowMs = T0;
  let turn = 0;

  const pass = (index: number, racing?: number) => {
    const replica = replicas[index];
    if (replica === undefined) return;
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      const read = store.state;
      const version = store.version;
      if (racing !== undefined && attempt === 1) pass(racing);
      const { state, changes } = planAuthorities(
        read,
        nowMs,
        lifetimes,
        (at) => {
          const ca = newCa(at);
          cas.set(ca.id, ca);
          firstCa ??= ca.id;
          return ca;
        },
      );
      if (changes.length > 0 && store.version !== version) continue;
      if (changes.length > 0)
        Object.assign(store, { state, version: version + 1 });
      if (leafRenewal(replica.leaf, state.signing, nowMs, lifetimes))
        replica.leaf = {
          issuerId: state.signing.id,
          notAfterMs: leafNotAfterMs(state.signing, nowMs, lifetimes),
          servedSinceMs: nowMs,
        };
      const bundle = bundleOf(state)
        .map((ca) => ca.id)
        .sort();
      if (bundle.join() !== replica.bundle) {
        replica.bundle = bundle.join();
        for (const id of [...published.keys()])
          if (!bundle.includes(id)) published.delete(id);
        for (const id of bundle)
          if (!published.has(id)) published.set(id, nowMs);
      }
      return;
    }
    violations.push(`replica ${index} conflicted three times at ${nowMs - T0}`);
  };

  const check = () => {
    for (const [index, { leaf }] of replicas.entries()) {
      if (leaf === undefined) continue;
      const at = `replica ${index} at +${(nowMs - T0) / S}s serving a leaf of ${leaf.issuerId}`;
      const since = published.get(leaf.issuerId);
      if (since === undefined)
        violations.push(`${at}: its CA is not in the bundle`);
      else if (
        leaf.issuerId !== firstCa &&
        since > leaf.servedSinceMs - lifetimes.caOverlapMs
      )
        violations.push(
          `${at}: its CA was published only ${(leaf.servedSinceMs - since) / S}s before`,
        );
      if (leaf.notAfterMs <= nowMs) violations.push(`${at}: expired`);
      if (leaf.notAfterMs > (cas.get(leaf.issuerId)?.notAfterMs ?? 0))
        violations.push(`${at}: outlives its CA`);
    }
  };

  while (nowMs < T0 + 2.5 * lifetimes.caValidityMs && violations.length === 0) {
    const replica = replicas.reduce((soonest, candidate) =>
      candidate.nextCheckMs < soonest.nextCheckMs ? candidate : soonest,
    );
    const index = replicas.indexOf(replica);
    nowMs = replica.nextCheckMs;
    const other = (index + 1) % replicaCount;
    pass(
      index,
      races[turn % races.length] && other !== index ? other : undefined,
    );
    check();
    replica.nextCheckMs =
      nowMs + Math.max(1, (paces[turn % paces.length] ?? 1) * interval);
    turn += 1;
    // Replicas starting together end with one CA: the losers of the race adopt it.
    const signing = new Set(replicas.map((r) => r.signing));
    if (turn === replicaCount && signing.size !== 1)
      violations.push(
        `replicas starting together sign with ${[...signing].join(', ')}`,
      );
  }
  return violations;
}

describe('replicas following the plan (property)', () => {
  const lifetimes = fc
    .record({
      certValidityMs: fc.integer({ min: 10 * S, max: 4 * H }),
      overlapChecks: fc.double({ min: 2, max: 8, noNaN: true }),
      caStretch: fc.double({ min: 1.01, max: 3, noNaN: true }),
    })
    .map(({ certValidityMs, overlapChecks, caStretch }) => {
      const caOverlapMs = Math.ceil(
        overlapChecks *
          checkIntervalMs({ certValidityMs } as CertificateLifetimes),
      );
      const caValidityMs = Math.ceil(
        Math.max(6 * caOverlapMs, certValidityMs + 3 * caOverlapMs) * caStretch,
      );
      return { caValidityMs, certValidityMs, caOverlapMs };
    });

  it('serves only leaves whose CA is in the bundle, published an overlap before (but the first CA)', () => {
    fc.assert(
      fc.property(
        lifetimes,
        fc.integer({ min: 1, max: 3 }),
        fc.array(fc.double({ min: 0.05, max: 1, noNaN: true }), {
          minLength: 1,
          maxLength: 40,
        }),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 40 }),
        (chosen, replicaCount, paces, races) => {
          expect(lifetimesProblem(chosen)).toBeUndefined();
          expect(simulate(chosen, replicaCount, paces, races)).toEqual([]);
        },
      ),
      { numRuns: 60 },
    );
  });
});
