import {
  scalableResource,
  scaleTargets,
  type ScaleTargets,
} from './scale-target.js';

const ROLLOUTS = {
  resources: [
    { name: 'rollouts', kind: 'Rollout' },
    { name: 'rollouts/scale', kind: 'Scale' },
    { name: 'rollouts/status', kind: 'Rollout' },
    { name: 'analysisruns', kind: 'AnalysisRun' },
  ],
};
const DISCOVERY = '/apis/argoproj.io/v1alpha1';
const SCALE = `${DISCOVERY}/namespaces/team-a/rollouts/web/scale`;
const ref = {
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'Rollout',
  name: 'web',
};

const notFound = () => Object.assign(new Error('not found'), { code: 404 });

describe('scalableResource', () => {
  it('finds the resource of the kind that has a scale subresource', () => {
    expect(scalableResource(ROLLOUTS, 'Rollout', 'argoproj.io/v1alpha1')).toBe(
      'rollouts',
    );
  });

  it('says when the group version serves no such kind', () => {
    expect(() =>
      scalableResource(ROLLOUTS, 'Canary', 'argoproj.io/v1alpha1'),
    ).toThrow('the API server serves no kind Canary in argoproj.io/v1alpha1');
  });

  it('says when the kind has no scale subresource', () => {
    expect(() =>
      scalableResource(ROLLOUTS, 'AnalysisRun', 'argoproj.io/v1alpha1'),
    ).toThrow(
      'AnalysisRun in argoproj.io/v1alpha1 is neither a well-known controller nor has a scale subresource',
    );
  });
});

describe('scaleTargets', () => {
  let nowMs: number;
  let responses: Record<string, () => unknown>;
  let requests: string[];
  let started: ScaleTargets[];
  const targets = (loopPeriodMs = 60_000) => {
    const scales = scaleTargets({
      get: async (path) => {
        requests.push(path);
        const respond = responses[path];
        if (respond === undefined) throw notFound();
        return respond();
      },
      loopPeriodMs,
      discoveryTtlMs: 60_000,
      now: () => nowMs,
      random: () => 0.5,
    });
    started.push(scales);
    return scales;
  };
  const read = () => targets().read;
  const scale = (selector: string, ownerReferences?: unknown[]) => () => ({
    metadata: { name: 'web', ownerReferences },
    status: { replicas: 2, selector },
  });
  const MINUTE = 60_000;

  beforeEach(() => {
    nowMs = 0;
    requests = [];
    started = [];
    responses = {
      [DISCOVERY]: () => ROLLOUTS,
      [SCALE]: scale('app=web,track in (stable,canary)'),
    };
  });
  afterEach(() => Promise.all(started.map((scales) => scales.stop())));

  it('reads the selector from the scale subresource found by discovery', async () => {
    await expect(read()(ref, 'team-a')).resolves.toEqual({
      ownerReferences: undefined,
      selector: {
        matchExpressions: [
          { key: 'app', operator: 'In', values: ['web'] },
          { key: 'track', operator: 'In', values: ['stable', 'canary'] },
        ],
      },
    });
    expect(requests).toEqual([DISCOVERY, SCALE]);
  });

  it('answers later lookups from the cache, stale or not; discovery for a minute', async () => {
    const scales = targets();
    await scales.read(ref, 'team-a');
    nowMs = 59_999;
    await scales.read(ref, 'team-a');
    expect(requests).toEqual([DISCOVERY, SCALE]);
    nowMs = 30 * MINUTE;
    await scales.read(ref, 'team-a');
    expect(requests).toEqual([DISCOVERY, SCALE, DISCOVERY]);
  });

  it('GETs a scale again in the background once it is no longer fresh (10 min + jitter)', async () => {
    const scales = targets();
    await scales.read(ref, 'team-a');
    responses[SCALE] = scale('app=moved');
    nowMs = 15 * MINUTE;
    await scales.refreshStale();
    expect(requests).toEqual([DISCOVERY, SCALE]);
    nowMs = 15 * MINUTE + 1;
    await scales.refreshStale();
    expect(requests).toEqual([DISCOVERY, SCALE, SCALE]);
    await expect(scales.read(ref, 'team-a')).resolves.toMatchObject({
      selector: { matchExpressions: [{ key: 'app', values: ['moved'] }] },
    });
  });

  it('caches a failure like an answer, until the background refresh replaces it', async () => {
    let failing = true;
    responses[SCALE] = () => {
      if (failing) throw Object.assign(new Error('overloaded'), { code: 503 });
      return scale('app=web')();
    };
    const scales = targets();
    await expect(scales.read(ref, 'team-a')).rejects.toThrow('overloaded');
    failing = false;
    await expect(scales.read(ref, 'team-a')).rejects.toThrow('overloaded');
    expect(requests).toEqual([DISCOVERY, SCALE]);
    nowMs = 20 * MINUTE;
    await scales.refreshStale();
    await expect(scales.read(ref, 'team-a')).resolves.toMatchObject({
      selector: { matchExpressions: [{ key: 'app' }] },
    });
  });

  it('forgets a scale nobody looked up for an hour', async () => {
    const scales = targets();
    await scales.read(ref, 'team-a');
    nowMs = 60 * MINUTE + 1;
    await scales.refreshStale();
    await scales.read(ref, 'team-a');
    expect(requests).toEqual([DISCOVERY, SCALE, SCALE, DISCOVERY, SCALE]);
  });

  it('runs the refresh loop after the first lookup until stopped', async () => {
    const scales = targets(5);
    await scales.read(ref, 'team-a');
    nowMs = 20 * MINUTE;
    const deadline = Date.now() + 5_000;
    while (requests.length < 3 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 5));
    expect(requests).toEqual([DISCOVERY, SCALE, SCALE]);
    await scales.stop();
    nowMs = 40 * MINUTE;
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(requests).toHaveLength(3);
  });

  it('caches a target that does not exist too', async () => {
    const scales = targets();
    const missing = { ...ref, name: 'gone' };
    await expect(scales.read(missing, 'team-a')).resolves.toBeUndefined();
    await expect(scales.read(missing, 'team-a')).resolves.toBeUndefined();
    expect(requests.filter((path) => path.endsWith('/scale'))).toHaveLength(1);
  });

  it('resolves undefined for a target that does not exist', async () => {
    await expect(
      read()({ ...ref, name: 'gone' }, 'team-a'),
    ).resolves.toBeUndefined();
  });

  it('says when the API server does not serve the apiVersion', async () => {
    await expect(
      read()({ ...ref, apiVersion: 'argoproj.io/v9' }, 'team-a'),
    ).rejects.toThrow('the API server does not serve argoproj.io/v9');
  });

  it('discovers a core apiVersion at /api/v1', async () => {
    responses['/api/v1'] = () => ({
      resources: [{ name: 'pods', kind: 'Pod' }],
    });
    await expect(
      read()({ apiVersion: 'v1', kind: 'Pod', name: 'web' }, 'team-a'),
    ).rejects.toThrow(
      'Pod in v1 is neither a well-known controller nor has a scale subresource',
    );
    expect(requests).toEqual(['/api/v1']);
  });

  it('needs an apiVersion to find a kind that is not well known', async () => {
    await expect(
      read()({ kind: 'Rollout', name: 'web' }, 'team-a'),
    ).rejects.toThrow('targetRef has no apiVersion');
    expect(requests).toEqual([]);
  });

  it('has no selector when the scale status has none (it would select every pod)', async () => {
    responses[SCALE] = scale('');
    await expect(read()(ref, 'team-a')).resolves.toEqual({
      ownerReferences: undefined,
      selector: undefined,
    });
  });

  it('says which selector it could not parse', async () => {
    responses[SCALE] = scale('replicas>3');
    await expect(read()(ref, 'team-a')).rejects.toThrow(
      'Rollout team-a/web has an invalid scale status.selector "replicas>3"',
    );
  });

  it('passes on the owners of the scale object', async () => {
    const owners = [{ kind: 'Parent', name: 'p', controller: true }];
    responses[SCALE] = scale('app=web', owners);
    await expect(read()(ref, 'team-a')).resolves.toMatchObject({
      ownerReferences: owners,
    });
  });

  it('reads the configured replicas afresh on every call, past the cache', async () => {
    const scales = targets();
    responses[SCALE] = () => ({ spec: { replicas: 4 }, status: {} });
    await scales.read(ref, 'team-a');
    await expect(scales.replicas(ref, 'team-a')).resolves.toBe(4);
    responses[SCALE] = () => ({ spec: { replicas: 6 }, status: {} });
    await expect(scales.replicas(ref, 'team-a')).resolves.toBe(6);
    expect(requests).toEqual([DISCOVERY, SCALE, SCALE, SCALE]);
  });

  it('reads no replicas of a target that does not exist, and fails like read otherwise', async () => {
    const scales = targets();
    await expect(
      scales.replicas({ ...ref, name: 'gone' }, 'team-a'),
    ).resolves.toBeUndefined();
    responses[SCALE] = () => {
      throw Object.assign(new Error('forbidden'), { code: 403 });
    };
    await expect(scales.replicas(ref, 'team-a')).rejects.toThrow('forbidden');
    await expect(
      scales.replicas({ ...ref, kind: 'AnalysisRun' }, 'team-a'),
    ).rejects.toThrow('neither a well-known controller nor has a scale');
  });
});
