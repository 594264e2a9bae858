import type { VerticalPodAutoscaler } from '@tandem/vpa-api';
import { candidate, vpaWith } from './admission.fixtures.js';
import { chooseVpa, matchingVpas, type PodToMatch } from './vpa-choice.js';

const labels = { app: 'web', tier: 'front' };
/** A pod of the Deployment `web`, which `vpaWith` targets. */
const pod: PodToMatch = {
  labels,
  controller: { kind: 'Deployment', name: 'web' },
};
const named = (name: string, created?: string, mode?: 'Off' | 'Initial') =>
  vpaWith(undefined, {
    name,
    ...(created !== undefined && { created }),
    ...(mode && { mode }),
  });
const nameOf = (vpa: VerticalPodAutoscaler | undefined) => vpa?.metadata?.name;

describe('matchingVpas', () => {
  it('keeps candidates whose selector matches, in order', () => {
    const matching = matchingVpas(
      [
        candidate(named('a'), { matchLabels: { app: 'web' } }),
        candidate(named('b'), { matchLabels: { app: 'db' } }),
        candidate(named('c'), {
          matchExpressions: [
            { key: 'tier', operator: 'In', values: ['front'] },
          ],
        }),
        candidate(named('d'), {}),
      ],
      pod,
    );
    expect(matching.map(nameOf)).toEqual(['a', 'c', 'd']);
  });

  it('skips unresolved, invalid and unreadable candidates', () => {
    const matching = matchingVpas(
      [
        { vpa: named('unresolved'), selector: undefined },
        candidate(named('invalid'), {
          matchExpressions: [{ key: 'app', operator: 'In', values: [] }],
        }),
        candidate({ metadata: { name: 'no-spec' } } as never, {}),
        null as never,
        candidate(named('ok'), {}),
      ],
      pod,
    );
    expect(matching.map(nameOf)).toEqual(['ok']);
  });
});

describe('chooseVpa', () => {
  it('picks the oldest, then the smallest name', () => {
    const chosen = chooseVpa(
      [
        candidate(named('z', '2024-01-02T00:00:00Z'), {}),
        candidate(named('b', '2024-01-01T00:00:00Z'), {}),
        candidate(named('a', '2024-01-01T00:00:00Z'), {}),
      ],
      pod,
    );
    expect(nameOf(chosen)).toBe('a');
  });

  it('passes over VPAs in update mode Off, however old', () => {
    const chosen = chooseVpa(
      [
        candidate(named('off', '2020-01-01T00:00:00Z', 'Off'), {}),
        candidate(named('initial', '2024-01-01T00:00:00Z', 'Initial'), {}),
      ],
      pod,
    );
    expect(nameOf(chosen)).toBe('initial');
  });

  it('counts a missing or unreadable creation time as oldest (Go zero time)', () => {
    const unset = named('unset');
    delete unset.metadata?.creationTimestamp;
    const chosen = chooseVpa(
      [
        candidate(named('dated', '1999-01-01T00:00:00Z'), {}),
        candidate(named('garbled', 'yesterday'), {}),
        candidate(unset, {}),
      ],
      pod,
    );
    expect(nameOf(chosen)).toBe('garbled');
  });

  it('is undefined when nothing matches or everything is Off', () => {
    expect(chooseVpa([], pod)).toBeUndefined();
    expect(
      chooseVpa([candidate(named('off', undefined, 'Off'), {})], pod),
    ).toBeUndefined();
  });
});

/** A VPA with a given target, as upstream's `TestGetControllingVPAForPod` builds them. */
const targeting = (
  name: string,
  created: string,
  targetRef: { kind: string; name: string; apiVersion?: string } | undefined,
) => {
  const vpa = named(name, created);
  // A v1beta1-era VPA without a targetRef, which upstream skips.
  if (vpa.spec !== undefined)
    vpa.spec.targetRef = targetRef as { kind: string; name: string };
  return vpa;
};

describe("the controlling VPA, case by case from upstream's pkg/utils/vpa/api_test.go", () => {
  const stsPod: PodToMatch = {
    labels: { app: 'testingApp' },
    controller: { kind: 'StatefulSet', name: 'test-sts' },
  };
  const sts = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'test-sts' };
  const matchesApp = { matchLabels: { app: 'testingApp' } };

  it('picks the VPA that targets the top-most controller and matches, not an older one that does not match, nor one without a target', () => {
    const vpaA = targeting('a', '1970-01-01T00:00:05Z', sts);
    const vpaB = targeting('b', '1970-01-01T00:00:10Z', undefined);
    const nonMatching = targeting('n', '1970-01-01T00:00:02Z', sts);
    expect(
      chooseVpa(
        [
          candidate(vpaB, matchesApp),
          candidate(vpaA, matchesApp),
          candidate(nonMatching, { matchLabels: { app: 'other' } }),
        ],
        stsPod,
      ),
    ).toBe(vpaA);
  });

  it('controls nothing when the pod has no top-most controller (no owner, a Node, a custom resource without /scale)', () => {
    const vpaA = targeting('a', '1970-01-01T00:00:05Z', sts);
    expect(
      chooseVpa([candidate(vpaA, matchesApp)], {
        ...stsPod,
        controller: undefined,
      }),
    ).toBeUndefined();
  });

  it('passes over a VPA whose selector matches but whose target is another controller', () => {
    const job = targeting('job-vpa', '1970-01-01T00:00:01Z', {
      kind: 'Job',
      name: 'test-sts',
    });
    const otherSts = targeting('other', '1970-01-01T00:00:01Z', {
      ...sts,
      name: 'other-sts',
    });
    const vpaA = targeting('a', '1970-01-01T00:00:05Z', sts);
    expect(
      chooseVpa(
        [
          candidate(job, matchesApp),
          candidate(otherSts, matchesApp),
          candidate(vpaA, matchesApp),
        ],
        stsPod,
      ),
    ).toBe(vpaA);
  });

  it('passes over a VPA that targets the controller but whose selector does not match', () => {
    const vpaA = targeting('a', '1970-01-01T00:00:05Z', sts);
    expect(
      chooseVpa([candidate(vpaA, { matchLabels: { app: 'other' } })], stsPod),
    ).toBeUndefined();
  });

  it('compares kind and name only: the API version of the targetRef is not compared', () => {
    const old = targeting('a', '1970-01-01T00:00:05Z', {
      ...sts,
      apiVersion: 'apps/v1beta2',
    });
    expect(chooseVpa([candidate(old, matchesApp)], stsPod)).toBe(old);
  });

  it('among several VPAs of the one target, the oldest not Off wins, then the smallest name', () => {
    const off = named('off', '1970-01-01T00:00:01Z', 'Off');
    const young = targeting('y', '1970-01-01T00:00:09Z', sts);
    const b = targeting('b', '1970-01-01T00:00:05Z', sts);
    const a = targeting('a', '1970-01-01T00:00:05Z', sts);
    if (off.spec) off.spec.targetRef = sts;
    expect(
      chooseVpa(
        [off, young, b, a].map((vpa) => candidate(vpa, matchesApp)),
        stsPod,
      ),
    ).toBe(a);
  });
});
