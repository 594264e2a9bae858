import { KindNotServedError, NotScalableError } from './scale-target.js';
import type { TargetReaders } from './target-resolver.js';
import {
  topMostControllerFinder,
  type ControllerRef,
} from './top-most-controller.js';
import type { TargetObject } from './well-known-kinds.js';

const NS = 'team-a';

/** A controlling owner reference, as an object's metadata holds it. */
const ownedBy = (kind: string, name: string, apiVersion = 'apps/v1') => ({
  ownerReferences: [
    { apiVersion, kind, name: 'not-the-controller', controller: false },
    { apiVersion, kind, name, controller: true },
  ],
  selector: undefined,
});
const topLevel: TargetObject = { selector: undefined };

describe('topMostControllerFinder', () => {
  /** Objects by `kind/name`; an Error is thrown when read. */
  let objects: Record<string, TargetObject | Error>;
  let reads: string[];
  const read = (kind: string, name: string) => {
    reads.push(`${kind}/${name}`);
    const found = objects[`${kind}/${name}`];
    if (found instanceof Error) return Promise.reject(found);
    return Promise.resolve(found);
  };
  const readers: TargetReaders = {
    wellKnown: (kind, namespace, name) => {
      expect(namespace).toBe(NS);
      return read(kind, name);
    },
    scalable: (ref, namespace) => {
      expect(namespace).toBe(NS);
      return read(ref.kind, ref.name);
    },
  };
  const find = (owner: ControllerRef) =>
    topMostControllerFinder(readers)(NS, owner);
  const rs = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-6d4f' };

  beforeEach(() => {
    reads = [];
    objects = {};
  });

  it("walks a ReplicaSet up to its Deployment (upstream's 'deployment with parent')", async () => {
    objects['ReplicaSet/web-6d4f'] = ownedBy('Deployment', 'web');
    objects['Deployment/web'] = topLevel;
    await expect(find(rs)).resolves.toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'web',
    });
    expect(reads).toEqual(['ReplicaSet/web-6d4f', 'Deployment/web']);
  });

  it('walks a Job up to its CronJob', async () => {
    objects['Job/report-1'] = ownedBy('CronJob', 'report', 'batch/v1');
    objects['CronJob/report'] = topLevel;
    await expect(
      find({ apiVersion: 'batch/v1', kind: 'Job', name: 'report-1' }),
    ).resolves.toMatchObject({ kind: 'CronJob', name: 'report' });
  });

  it.each(['StatefulSet', 'DaemonSet', 'ReplicationController', 'Job'])(
    'keeps a %s without an owner',
    async (kind) => {
      objects[`${kind}/web`] = topLevel;
      await expect(find({ kind, name: 'web' })).resolves.toEqual({
        kind,
        name: 'web',
        apiVersion: undefined,
      });
    },
  );

  it('compares kinds without their API version: any apiVersion of a well-known kind counts', async () => {
    objects['Deployment/web'] = topLevel;
    await expect(
      find({
        apiVersion: 'extensions/v1beta1',
        kind: 'Deployment',
        name: 'web',
      }),
    ).resolves.toMatchObject({ kind: 'Deployment', name: 'web' });
  });

  it('climbs to a scalable custom resource above a Deployment', async () => {
    objects['ReplicaSet/web-6d4f'] = ownedBy('Deployment', 'web');
    objects['Deployment/web'] = ownedBy('Rollout', 'web', 'argoproj.io/v1');
    objects['Rollout/web'] = topLevel;
    await expect(find(rs)).resolves.toEqual({
      apiVersion: 'argoproj.io/v1',
      kind: 'Rollout',
      name: 'web',
    });
  });

  it('stops below a custom resource without /scale, which cannot be read further', async () => {
    objects['ReplicaSet/web-6d4f'] = ownedBy('Deployment', 'web');
    objects['Deployment/web'] = ownedBy('Operated', 'web', 'example.com/v1');
    objects['Operated/web'] = new NotScalableError('no scale subresource');
    await expect(find(rs)).resolves.toMatchObject({ kind: 'Deployment' });
  });

  it('stops below a scalable owner that no longer exists (404)', async () => {
    objects['Deployment/web'] = ownedBy('Rollout', 'gone', 'argoproj.io/v1');
    await expect(
      find({ kind: 'Deployment', name: 'web' }),
    ).resolves.toMatchObject({ kind: 'Deployment' });
  });

  it("finds none for a pod owned by a custom resource without /scale (upstream's 'custom resource with no scale subresource')", async () => {
    objects['Operated/web'] = new NotScalableError('no scale subresource');
    await expect(
      find({ apiVersion: 'example.com/v1', kind: 'Operated', name: 'web' }),
    ).resolves.toBeUndefined();
  });

  it('finds none for a static pod owned by a Node, without reading the Node', async () => {
    await expect(
      find({ apiVersion: 'v1', kind: 'Node', name: 'node-1' }),
    ).resolves.toBeUndefined();
    expect(reads).toEqual([]);
  });

  it("finds none when a Node owns a link higher up (upstream's 'parent is node')", async () => {
    objects['Deployment/web'] = ownedBy('Node', 'node-1', 'v1');
    await expect(
      find({ kind: 'Deployment', name: 'web' }),
    ).resolves.toBeUndefined();
  });

  it("rejects a well-known controller that is not in its cache (upstream's 'deployment doesn't exist')", async () => {
    await expect(find(rs)).rejects.toThrow(
      'ReplicaSet team-a/web-6d4f does not exist',
    );
  });

  it('rejects a chain through a cycle, a self-owned controller included', async () => {
    objects['Deployment/web'] = ownedBy('Deployment', 'web');
    await expect(find({ kind: 'Deployment', name: 'web' })).rejects.toThrow(
      'cycle detected in ownership chain',
    );
    objects['ReplicaSet/web-6d4f'] = ownedBy('Deployment', 'loop');
    objects['Deployment/loop'] = ownedBy('ReplicaSet', 'web-6d4f');
    await expect(find(rs)).rejects.toThrow('cycle detected in ownership chain');
  });

  it('rejects an unreadable scale (RBAC, a failing API server)', async () => {
    objects['Deployment/web'] = ownedBy('Alloy', 'metrics', 'example.com/v1');
    objects['Alloy/metrics'] = Object.assign(new Error('forbidden'), {
      code: 403,
    });
    await expect(find({ kind: 'Deployment', name: 'web' })).rejects.toThrow(
      'forbidden',
    );
  });

  it('rejects an owner of a kind the API server does not serve', async () => {
    objects['Deployment/web'] = ownedBy('Gone', 'web', 'example.com/v1');
    objects['Gone/web'] = new KindNotServedError(
      'the API server does not serve example.com/v1',
    );
    await expect(find({ kind: 'Deployment', name: 'web' })).rejects.toThrow(
      'does not serve example.com/v1',
    );
  });

  it('rejects when a cache read fails (a cold cache past its deadline)', async () => {
    objects['ReplicaSet/web-6d4f'] = new Error('the ReplicaSet cache is cold');
    await expect(find(rs)).rejects.toThrow('the ReplicaSet cache is cold');
  });
});
