import { scalableResource, scaleTargets } from './scale-target.js';

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
  const read = () =>
    scaleTargets({
      get: async (path) => {
        requests.push(path);
        const respond = responses[path];
        if (respond === undefined) throw notFound();
        return respond();
      },
      ttlMs: 60_000,
      now: () => nowMs,
    });
  const scale = (selector: string, ownerReferences?: unknown[]) => () => ({
    metadata: { name: 'web', ownerReferences },
    status: { replicas: 2, selector },
  });

  beforeEach(() => {
    nowMs = 0;
    requests = [];
    responses = {
      [DISCOVERY]: () => ROLLOUTS,
      [SCALE]: scale('app=web,track in (stable,canary)'),
    };
  });

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

  it('reuses discovery and scale until the TTL is up, then reads them again', async () => {
    const targets = read();
    await targets(ref, 'team-a');
    nowMs = 59_999;
    await targets(ref, 'team-a');
    expect(requests).toHaveLength(2);
    nowMs = 60_000;
    await targets(ref, 'team-a');
    expect(requests).toEqual([DISCOVERY, SCALE, DISCOVERY, SCALE]);
  });

  it('reads again after a failure instead of caching it', async () => {
    let failing = true;
    responses[SCALE] = () => {
      if (failing) throw Object.assign(new Error('overloaded'), { code: 503 });
      return scale('app=web')();
    };
    const targets = read();
    await expect(targets(ref, 'team-a')).rejects.toThrow('overloaded');
    failing = false;
    await expect(targets(ref, 'team-a')).resolves.toMatchObject({
      selector: { matchExpressions: [{ key: 'app' }] },
    });
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
});
