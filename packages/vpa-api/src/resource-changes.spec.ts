import {
  changedResources,
  describeResourceChanges,
  kubectlQuantity,
} from './resource-changes.js';

describe('changedResources', () => {
  it('keeps what moved by at least the fraction, and what is new', () => {
    expect(
      changedResources(
        'app',
        { cpu: '400m', memory: '1Gi' },
        { cpu: '210m', memory: '1.05Gi', 'ephemeral-storage': '1Gi' },
        0.1,
      ),
    ).toEqual([
      { container: 'app', resource: 'cpu', from: '400m', to: '210m' },
      {
        container: 'app',
        resource: 'ephemeral-storage',
        from: undefined,
        to: '1Gi',
      },
    ]);
  });

  it('counts a move of exactly the fraction, as the updater does', () => {
    expect(
      changedResources('app', { cpu: '1' }, { cpu: '1100m' }, 0.1),
    ).toHaveLength(1);
    expect(
      changedResources('app', { cpu: '1' }, { cpu: '1099m' }, 0.1),
    ).toEqual([]);
  });

  it('with no fraction, keeps any difference in value but not in spelling', () => {
    expect(changedResources('app', { cpu: '1' }, { cpu: '1000m' })).toEqual([]);
    expect(
      changedResources('app', { cpu: '1' }, { cpu: '1001m' }),
    ).toHaveLength(1);
    expect(changedResources('app', { cpu: '0' }, { cpu: '1m' })).toHaveLength(
      1,
    );
  });

  it('compares text that is not a quantity as text', () => {
    expect(changedResources('app', { cpu: 'x' }, { cpu: 'x' })).toEqual([]);
    expect(changedResources('app', { cpu: 'x' }, { cpu: '1' })).toHaveLength(1);
  });
});

describe('describeResourceChanges', () => {
  it('writes quantities as kubectl prints them, containers apart', () => {
    expect(
      describeResourceChanges([
        { container: 'app', resource: 'cpu', from: '0.4', to: '210m' },
        {
          container: 'app',
          resource: 'memory',
          from: '1024Mi',
          to: '838860800',
        },
        { container: 'sidecar', resource: 'cpu', from: undefined, to: '10m' },
      ]),
    ).toBe('app: cpu 400m -> 210m, memory 1Gi -> 838860800; sidecar: cpu 10m');
  });

  it('leaves text that is not a quantity as it is', () => {
    expect(kubectlQuantity('lots')).toBe('lots');
  });
});
