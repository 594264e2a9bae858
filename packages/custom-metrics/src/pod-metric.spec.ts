import fc from 'fast-check';
import { METRIC_NAMES, type MetricName } from './metric-names.js';
import {
  annotationFor,
  container,
  ORIGINAL_RESOURCES,
  pod,
  used,
} from './pod.fixtures.js';
import { podMetric } from './pod-metric.js';

// Reference §4.2: one container declared with request 1000m / limit 2000m, which the VPA
// rewrote to 690m / 1380m (ratio kept); the pod uses 600m.
const DECLARED = container('app', { cpu: '1000m' }, { cpu: '2000m' });
const REWRITTEN = container('app', { cpu: '690m' }, { cpu: '1380m' });
const USAGE = [used('app', 600)];

describe('podMetric: the worked example of reference §4.2', () => {
  const afterVpa = pod([REWRITTEN], { annotations: annotationFor([DECLARED]) });

  it('reads 60% of the original request, where the native HPA reads 86%', () => {
    expect(
      podMetric(
        afterVpa,
        USAGE,
        'cpu_utilization_of_original_request',
        undefined,
      ),
    ).toEqual({ value: 60, originals: 'annotation' });
  });

  it('reads 30% of the original limit, not 43% of the rewritten one', () => {
    expect(
      podMetric(afterVpa, USAGE, 'cpu_utilization_of_limit', undefined),
    ).toEqual({ value: 30, originals: 'annotation' });
  });

  it('reads the same before and after the VPA rewrote the pod', () => {
    const beforeVpa = pod([DECLARED], {
      annotations: annotationFor([DECLARED]),
    });
    for (const metric of METRIC_NAMES) {
      expect(podMetric(afterVpa, USAGE, metric, undefined)).toEqual(
        podMetric(beforeVpa, USAGE, metric, undefined),
      );
    }
  });

  it('without any record of the originals, measures the current request as the native HPA does', () => {
    const result = podMetric(
      pod([REWRITTEN]),
      USAGE,
      'cpu_utilization_of_original_request',
      undefined,
    );
    expect(result.originals).toBe('current');
    expect(Math.floor(result.value ?? NaN)).toBe(86); // floor(100 × 600 / 690)
  });

  it('serves raw usage in cores and bytes', () => {
    const usage = [used('app', 600, 512 * 2 ** 20)];
    expect(podMetric(afterVpa, usage, 'cpu_usage', undefined)).toEqual({
      value: 0.6,
      originals: 'annotation',
    });
    expect(podMetric(afterVpa, usage, 'memory_usage', undefined)).toEqual({
      value: 536870912,
      originals: 'annotation',
    });
  });
});

describe('podMetric: where the originals come from', () => {
  const template = [DECLARED];

  it('falls back to the controller template when the pod has no annotation', () => {
    expect(
      podMetric(
        pod([REWRITTEN], { templateContainers: template }),
        USAGE,
        'cpu_utilization_of_original_request',
        undefined,
      ),
    ).toEqual({ value: 60, originals: 'template' });
  });

  it('prefers the annotation to the template', () => {
    const annotated = container('app', { cpu: '500m' }, { cpu: '1' });
    expect(
      podMetric(
        pod([REWRITTEN], {
          annotations: annotationFor([annotated]),
          templateContainers: template,
        }),
        USAGE,
        'cpu_utilization_of_original_request',
        undefined,
      ),
    ).toEqual({ value: 120, originals: 'annotation' });
  });

  it.each([
    ['not JSON', 'original resources: not JSON'],
    [
      '{"app":{"requests":{"cpu":"lots"},"limits":{}}}',
      'invalid quantity "lots"',
    ],
    ['{"app":{"requests":{}}}', 'original resources["app"].limits: missing'],
  ])(
    'reports a malformed annotation %j and falls back to the template',
    (text, message) => {
      const result = podMetric(
        pod([REWRITTEN], {
          annotations: { [ORIGINAL_RESOURCES]: text },
          templateContainers: template,
        }),
        USAGE,
        'cpu_utilization_of_limit',
        undefined,
      );
      expect(result).toEqual({
        value: 30,
        originals: 'template',
        malformedAnnotation: expect.stringContaining(message),
      });
    },
  );

  it('falls back to the current values when the annotation is malformed and there is no template', () => {
    const result = podMetric(
      pod([REWRITTEN], { annotations: { [ORIGINAL_RESOURCES]: '[]' } }),
      USAGE,
      'cpu_utilization_of_limit',
      undefined,
    );
    expect(result.originals).toBe('current');
    expect(result.malformedAnnotation).toMatch(/must be a JSON object/);
    expect(result.value).toBeCloseTo(43.478, 3); // 600 / 1380
  });

  it('reports a malformed annotation even when the pod has no value', () => {
    expect(
      podMetric(
        pod([REWRITTEN], {
          annotations: { [ORIGINAL_RESOURCES]: '{' },
          ready: false,
        }),
        USAGE,
        'cpu_usage',
        undefined,
      ),
    ).toEqual({
      reason: 'pod not ready',
      originals: 'current',
      malformedAnnotation: expect.stringMatching(
        /^original resources: not JSON/,
      ),
    });
  });

  it('looks up a container the annotation lacks (a sidecar injected later) in the template, then the current spec, and says so', () => {
    const envoy = container('envoy', { cpu: '100m' }, { cpu: '200m' });
    const usage = [used('app', 600), used('envoy', 100)];
    const annotated = pod([REWRITTEN, envoy], {
      annotations: annotationFor([DECLARED]),
    });
    // 700 / (1000 + 100)
    const current = podMetric(
      annotated,
      usage,
      'cpu_utilization_of_original_request',
      undefined,
    );
    expect(current.originals).toBe('current');
    expect(current.value).toBeCloseTo(63.636, 3);

    const templated = podMetric(
      { ...annotated, templateContainers: [DECLARED, envoy] },
      usage,
      'cpu_utilization_of_original_request',
      undefined,
    );
    expect(templated.originals).toBe('template');
    expect(templated.value).toBeCloseTo(63.636, 3);

    // Narrowed to `app`, only the annotation is read.
    expect(
      podMetric(annotated, usage, 'cpu_utilization_of_original_request', 'app'),
    ).toEqual({ value: 60, originals: 'annotation' });
  });

  it('never completes a container the annotation has from a later source', () => {
    // The user declared no limit; the current one (a LimitRange default, since scaled by
    // the VPA) must not stand in for it.
    const declared = container('app', { cpu: '1' });
    expect(
      podMetric(
        pod([REWRITTEN], {
          annotations: annotationFor([declared]),
          templateContainers: [DECLARED],
        }),
        USAGE,
        'cpu_utilization_of_limit',
        undefined,
      ),
    ).toEqual({
      reason: 'container app has no cpu limit',
      originals: 'annotation',
    });
  });

  it('reads memory in bytes from binary and decimal quantities', () => {
    const declared = container('app', { memory: '512Mi' }, { memory: '1G' });
    const usage = [used('app', 0, 256 * 2 ** 20)];
    const annotated = pod(
      [container('app', { memory: '300Mi' }, { memory: '600Mi' })],
      {
        annotations: annotationFor([declared]),
      },
    );
    expect(
      podMetric(
        annotated,
        usage,
        'memory_utilization_of_original_request',
        undefined,
      ),
    ).toEqual({ value: 50, originals: 'annotation' });
    expect(
      podMetric(annotated, usage, 'memory_utilization_of_limit', undefined)
        .value,
    ).toBeCloseTo((100 * 268435456) / 1e9, 9);
  });
});

describe('podMetric: multi-container pods (reference §4.3 (c))', () => {
  const app = container('app', { cpu: '1000m' }, { cpu: '2000m' });
  const usage = [used('app', 900), used('envoy', 20)];

  it('a mostly idle sidecar dilutes the pod sum', () => {
    const slim = pod([
      app,
      container('envoy', { cpu: '100m' }, { cpu: '200m' }),
    ]);
    // 920 / 1100
    expect(
      podMetric(slim, usage, 'cpu_utilization_of_original_request', undefined)
        .value,
    ).toBeCloseTo(83.636, 3);
    const fat = pod([
      app,
      container('envoy', { cpu: '1000m' }, { cpu: '2000m' }),
    ]);
    // 920 / 2000: the HPA would never scale although app is at 90%.
    expect(
      podMetric(fat, usage, 'cpu_utilization_of_original_request', undefined)
        .value,
    ).toBeCloseTo(46, 9);
    // container=app sees the main container only.
    expect(
      podMetric(fat, usage, 'cpu_utilization_of_original_request', 'app'),
    ).toEqual({ value: 90, originals: 'current' });
    expect(podMetric(fat, usage, 'cpu_utilization_of_limit', 'app')).toEqual({
      value: 45,
      originals: 'current',
    });
    expect(podMetric(fat, usage, 'cpu_usage', 'envoy')).toEqual({
      value: 0.02,
      originals: 'current',
    });
  });

  it('gives no value when any summed container lacks the base, naming it', () => {
    const unlimited = pod([app, container('envoy', { cpu: '100m' })]);
    expect(
      podMetric(unlimited, usage, 'cpu_utilization_of_limit', undefined),
    ).toEqual({
      reason: 'container envoy has no cpu limit',
      originals: 'current',
    });
    expect(
      podMetric(unlimited, usage, 'memory_utilization_of_limit', undefined),
    ).toEqual({
      reason: 'container app has no memory limit',
      originals: 'current',
    });
    // The container that has one still has a value on its own.
    expect(
      podMetric(unlimited, usage, 'cpu_utilization_of_limit', 'app'),
    ).toEqual({ value: 45, originals: 'current' });
    const unrequested = pod([app, container('envoy', {}, { cpu: '200m' })]);
    expect(
      podMetric(
        unrequested,
        usage,
        'cpu_utilization_of_original_request',
        undefined,
      ),
    ).toEqual({
      reason: 'container envoy has no cpu request',
      originals: 'current',
    });
  });

  it('counts native sidecars with usage, never plain init containers', () => {
    const withInits = pod([app], {
      initContainers: [
        { ...container('migrate', { cpu: '4' }, { cpu: '4' }) },
        {
          ...container('envoy', { cpu: '100m' }, { cpu: '200m' }),
          restartPolicy: 'Always',
        },
      ],
    });
    const usageWithInit = [...usage, used('migrate', 3000)];
    // (900 + 20) / (1000 + 100): migrate's usage and request are ignored.
    expect(
      podMetric(
        withInits,
        usageWithInit,
        'cpu_utilization_of_original_request',
        undefined,
      ).value,
    ).toBeCloseTo(83.636, 3);
    expect(
      podMetric(withInits, usageWithInit, 'cpu_usage', undefined).value,
    ).toBeCloseTo(0.92, 12);
    // A sidecar without usage (not started yet) is left out of the sum.
    expect(
      podMetric(
        withInits,
        [used('app', 900)],
        'cpu_utilization_of_original_request',
        undefined,
      ),
    ).toEqual({ value: 90, originals: 'current' });
    // A sidecar can be selected; a plain init container cannot.
    expect(
      podMetric(
        withInits,
        usage,
        'cpu_utilization_of_original_request',
        'envoy',
      ),
    ).toEqual({ value: 20, originals: 'current' });
    expect(podMetric(withInits, usageWithInit, 'cpu_usage', 'migrate')).toEqual(
      {
        reason:
          "container migrate is an init container, not running beside the pod's containers",
        originals: 'current',
      },
    );
  });

  it('a sidecar missing from the template is measured against its current values', () => {
    const withSidecar = pod([app], {
      initContainers: [
        {
          ...container('envoy', { cpu: '100m' }, { cpu: '200m' }),
          restartPolicy: 'Always',
        },
      ],
      templateContainers: [app],
    });
    const result = podMetric(
      withSidecar,
      usage,
      'cpu_utilization_of_original_request',
      undefined,
    );
    expect(result.originals).toBe('current');
    expect(result.value).toBeCloseTo(83.636, 3);
    expect(
      podMetric(
        withSidecar,
        usage,
        'cpu_utilization_of_original_request',
        'app',
      ),
    ).toEqual({ value: 90, originals: 'template' });
  });
});

describe('podMetric: pods without a value', () => {
  const ready = pod([DECLARED]);

  it.each<[string, Parameters<typeof podMetric>, string]>([
    [
      'not ready',
      [{ ...ready, ready: false }, USAGE, 'cpu_usage', undefined],
      'pod not ready',
    ],
    [
      'without metrics',
      [ready, undefined, 'cpu_usage', undefined],
      'no metrics for pod',
    ],
    [
      'missing a container in its metrics',
      [pod([DECLARED, container('envoy')]), USAGE, 'cpu_usage', undefined],
      'no metrics for container envoy',
    ],
    [
      'asked for a container it lacks',
      [ready, USAGE, 'cpu_usage', 'envoy'],
      'pod has no container envoy',
    ],
    [
      'asked for a container without metrics',
      [pod([DECLARED, container('envoy')]), USAGE, 'cpu_usage', 'envoy'],
      'no metrics for container envoy',
    ],
    [
      'with no containers',
      [pod([]), [], 'cpu_usage', undefined],
      'pod has no containers',
    ],
    [
      'with a zero request',
      [
        pod([container('app', { cpu: '0' })]),
        USAGE,
        'cpu_utilization_of_original_request',
        undefined,
      ],
      'declared cpu request is zero',
    ],
  ])('%s', (_name, args, reason) => {
    const result = podMetric(...args);
    expect(result.value).toBeUndefined();
    expect(result.reason).toBe(reason);
  });

  it('reports an unreadable current quantity instead of throwing', () => {
    expect(
      podMetric(
        pod([container('app', {}, { cpu: 'lots' })]),
        USAGE,
        'cpu_utilization_of_limit',
        undefined,
      ).reason,
    ).toMatch(
      /^container app has an unreadable cpu limit: invalid quantity "lots"/,
    );
  });
});

describe('podMetric: properties', () => {
  const millicores = fc.integer({ min: 1, max: 64_000 });
  const metric = fc.constantFrom<MetricName>(...METRIC_NAMES);

  it('whatever the VPA sets, utilization follows the declared values only', () => {
    fc.assert(
      fc.property(
        millicores,
        millicores,
        fc.integer({ min: 0, max: 64_000 }),
        fc.double({ min: 0.05, max: 20, noNaN: true }),
        metric,
        (request, limit, usage, vpaFactor, name) => {
          const declared = container(
            'app',
            { cpu: `${request}m`, memory: `${request}Mi` },
            { cpu: `${limit}m`, memory: `${limit}Mi` },
          );
          const scale = (m: number) =>
            `${Math.max(1, Math.round(m * vpaFactor))}m`;
          const rewritten = container(
            'app',
            { cpu: scale(request), memory: scale(request * 1000) },
            { cpu: scale(limit), memory: scale(limit * 1000) },
          );
          const samples = [used('app', usage, usage * 2 ** 20)];
          const before = podMetric(
            pod([declared], { annotations: annotationFor([declared]) }),
            samples,
            name,
            undefined,
          );
          const after = podMetric(
            pod([rewritten], { annotations: annotationFor([declared]) }),
            samples,
            name,
            'app',
          );
          expect(after).toEqual(before);
          const base = name.endsWith('_of_limit') ? limit : request;
          if (name.includes('_utilization_')) {
            expect(before.value).toBeCloseTo((100 * usage) / base, 9);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('never throws and always reports its originals', () => {
    const quantity = fc.oneof(
      fc.constantFrom('1', '250m', '0', '1Gi', 'junk', ''),
      fc.string({ maxLength: 4 }),
    );
    const resources = fc.dictionary(fc.constantFrom('cpu', 'memory'), quantity);
    const anyContainer = fc.record({
      name: fc.constantFrom('app', 'envoy', 'init'),
      requests: resources,
      limits: resources,
    });
    fc.assert(
      fc.property(
        fc.array(anyContainer, { maxLength: 3 }),
        fc.option(fc.string({ maxLength: 40 }), { nil: undefined }),
        fc.option(
          fc.array(
            fc.record({
              name: fc.constantFrom('app', 'envoy', 'init'),
              cpuCores: fc.double({ min: 0, max: 8, noNaN: true }),
              memoryBytes: fc.nat(),
            }),
          ),
          { nil: undefined },
        ),
        metric,
        fc.option(fc.constantFrom('app', 'envoy', 'init'), { nil: undefined }),
        (containers, annotation, usage, name, selected) => {
          const result = podMetric(
            pod(containers, {
              annotations:
                annotation === undefined
                  ? {}
                  : { [ORIGINAL_RESOURCES]: annotation },
            }),
            usage,
            name,
            selected,
          );
          expect(['annotation', 'template', 'current']).toContain(
            result.originals,
          );
          expect(
            (result.value === undefined) !== (result.reason === undefined),
          ).toBe(true);
          if (result.value !== undefined) {
            expect(Number.isFinite(result.value)).toBe(true);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
