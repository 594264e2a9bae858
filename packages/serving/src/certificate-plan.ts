// The certificate state machine of one installation, without I/O: which CAs the shared
// Secret holds, when one is staged, promoted and retired, and when a replica renews its
// serving certificate. Times are milliseconds since the epoch; every threshold counts
// back from a certificate's notAfter (never backdated) or from a time recorded when the
// state changed, never from notBefore, which certificates.ts backdates by an hour.

/** A CA as the plan sees it: an identity (its fingerprint) and its end of validity. */
export interface Authority {
  readonly id: string;
  readonly notAfterMs: number;
}

export interface CertificateLifetimes {
  /** `--ca-validity`: each CA's lifetime. */
  readonly caValidityMs: number;
  /** `--cert-validity`: each serving certificate's lifetime (capped at its CA's end). */
  readonly certValidityMs: number;
  /** `--ca-overlap`: how long a CA is in the bundle before it signs, and after it stopped. */
  readonly caOverlapMs: number;
}

/**
 * The CAs of one installation. `Ca` carries what signing needs (the key); a retired CA is
 * only trusted, so `Retired` may carry less.
 */
export interface AuthorityState<
  Ca extends Retired,
  Retired extends Authority = Ca,
> {
  /** Signs every replica's serving certificate. */
  readonly signing: Ca;
  /** Trusted (in the bundle) but not signing yet: promoted `caOverlapMs` after staging. */
  readonly next?: { readonly ca: Ca; readonly stagedAtMs: number };
  /** Stopped signing at `promotedAtMs`; dropped from the bundle `caOverlapMs` later. */
  readonly previous?: { readonly ca: Retired; readonly promotedAtMs: number };
}

/** What a plan changed, in order; empty when the stored state stands. */
export type AuthorityChange =
  | 'created'
  | 'replaced-expired'
  | 'retired'
  | 'promoted'
  | 'staged';

/**
 * A CA is staged when its signing CA has less than this share of `caValidityMs` left, and a
 * serving certificate is renewed when it has less than this share of `certValidityMs` left
 * (cert-manager renews at two thirds of the lifetime by default too).
 */
export const RENEW_WHEN_LEFT = 1 / 3;

/** How often a replica re-reads the Secret: a tenth of a serving certificate's life, at most a minute. */
export function checkIntervalMs(lifetimes: CertificateLifetimes): number {
  return Math.min(lifetimes.certValidityMs / 10, 60_000);
}

/**
 * Why these lifetimes cannot keep every served certificate trusted, or undefined:
 * - staging and its two overlaps must fit in the last third of a CA's life, so a CA is
 *   retired while still valid: 2 × overlap < CA validity / 3;
 * - a serving certificate capped at its CA's end must not look due for renewal at every
 *   check while that CA still signs: cert validity < CA validity − 3 × overlap;
 * - every replica must re-read the Secret at least twice within an overlap, so it sees a
 *   staged CA before any certificate that CA signs is served, and switches well before
 *   the previous CA leaves the bundle: overlap ≥ 2 × check interval.
 */
export function lifetimesProblem(
  lifetimes: CertificateLifetimes,
): string | undefined {
  const { caValidityMs, certValidityMs, caOverlapMs } = lifetimes;
  if (2 * caOverlapMs >= caValidityMs * RENEW_WHEN_LEFT)
    return '--ca-overlap must be less than a sixth of --ca-validity (a CA is staged when a third of its life is left, then needs two overlaps)';
  if (certValidityMs >= caValidityMs - 3 * caOverlapMs)
    return '--cert-validity must be less than --ca-validity minus three times --ca-overlap';
  if (caOverlapMs < 2 * checkIntervalMs(lifetimes))
    return '--ca-overlap must be at least twice the check interval (a tenth of --cert-validity, at most 1m)';
  return undefined;
}

/**
 * The state after `nowMs`, from the stored one (undefined: none, or one not to trust).
 * Rules, applied in this order:
 * - nothing stored, or a signing CA past its notAfter: one new CA signs at once (there is
 *   nothing a bundle could keep working);
 * - a previous CA `caOverlapMs` after its promotion leaves the bundle;
 * - a next CA `caOverlapMs` after staging signs, and the signing one becomes previous
 *   (only once the earlier previous is gone, so the bundle never holds three CAs);
 * - with neither, a signing CA with less than a third of `caValidityMs` left gets a next,
 *   and so does one with more than `caValidityMs` (and an overlap, for clocks a little
 *   apart) left: it was made under a longer `--ca-validity`, and a shortened lifetime
 *   takes effect by a rotation with its overlaps, not by waiting out the old one.
 */
export function planAuthorities<Ca extends Retired, Retired extends Authority>(
  stored: AuthorityState<Ca, Retired> | undefined,
  nowMs: number,
  lifetimes: CertificateLifetimes,
  newCa: (nowMs: number) => Ca,
): { state: AuthorityState<Ca, Retired>; changes: AuthorityChange[] } {
  if (stored === undefined)
    return { state: { signing: newCa(nowMs) }, changes: ['created'] };
  if (nowMs >= stored.signing.notAfterMs)
    return { state: { signing: newCa(nowMs) }, changes: ['replaced-expired'] };
  const overlap = lifetimes.caOverlapMs;
  let state = stored;
  const changes: AuthorityChange[] = [];
  if (state.previous && nowMs >= state.previous.promotedAtMs + overlap) {
    state = withoutPrevious(state);
    changes.push('retired');
  }
  if (
    state.next &&
    !state.previous &&
    nowMs >= state.next.stagedAtMs + overlap
  ) {
    state = {
      signing: state.next.ca,
      previous: { ca: state.signing, promotedAtMs: nowMs },
    };
    changes.push('promoted');
  }
  const left = state.signing.notAfterMs - nowMs;
  if (
    !state.next &&
    !state.previous &&
    (left < lifetimes.caValidityMs * RENEW_WHEN_LEFT ||
      left > lifetimes.caValidityMs + overlap)
  ) {
    state = {
      signing: state.signing,
      next: { ca: newCa(nowMs), stagedAtMs: nowMs },
    };
    changes.push('staged');
  }
  return { state, changes };
}

function withoutPrevious<Ca extends Retired, Retired extends Authority>(
  state: AuthorityState<Ca, Retired>,
): AuthorityState<Ca, Retired> {
  return state.next === undefined
    ? { signing: state.signing }
    : { signing: state.signing, next: state.next };
}

/** Every CA a client must trust now: the signing one, a staged next, a retiring previous. */
export function bundleOf<Ca extends Retired, Retired extends Authority>(
  state: AuthorityState<Ca, Retired>,
): Retired[] {
  return [state.signing, state.next?.ca, state.previous?.ca].filter(
    (ca): ca is Retired => ca !== undefined,
  );
}

/** A replica's serving certificate as the plan sees it. */
export interface Leaf {
  readonly issuerId: string;
  readonly notAfterMs: number;
}

export type LeafRenewal = 'first' | 'authority-changed' | 'expiring';

/**
 * Why the serving certificate must be renewed now, or undefined: there is none yet, the
 * signing CA is another one, or less than a third of `certValidityMs` is left.
 */
export function leafRenewal(
  leaf: Leaf | undefined,
  signing: Authority,
  nowMs: number,
  lifetimes: CertificateLifetimes,
): LeafRenewal | undefined {
  if (leaf === undefined) return 'first';
  if (leaf.issuerId !== signing.id) return 'authority-changed';
  if (leaf.notAfterMs - nowMs < lifetimes.certValidityMs * RENEW_WHEN_LEFT)
    return 'expiring';
  return undefined;
}

/** A serving certificate issued now ends after `certValidityMs`, and never after its CA. */
export function leafNotAfterMs(
  signing: Authority,
  nowMs: number,
  lifetimes: CertificateLifetimes,
): number {
  return Math.min(nowMs + lifetimes.certValidityMs, signing.notAfterMs);
}
