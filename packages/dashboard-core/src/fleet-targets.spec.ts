import fc from 'fast-check';
import { fleetTargets, workloadKey } from './fleet-targets.js';
import type { ObservedHpa, ObservedVpa, TargetRef } from './observed.js';

const deployment = (name: string): TargetRef => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  name,
});

const vpa = (
  namespace: string,
  name: string,
  targetRef: TargetRef,
): ObservedVpa => ({
  namespace,
  name,
  targetRef,
  mode: 'Recreate',
  target: {},
  lowerBound: {},
  upperBound: {},
});

const hpa = (
  namespace: string,
  name: string,
  targetRef: TargetRef,
): ObservedHpa => ({
  namespace,
  name,
  targetRef,
  minReplicas: 1,
  maxReplicas: 10,
  currentReplicas: 2,
  desiredReplicas: 2,
});

describe('workloadKey', () => {
  it('is namespace/kind/name, whatever the apiVersion', () => {
    expect(workloadKey('shop', deployment('web'))).toBe('shop/Deployment/web');
    expect(workloadKey('shop', { kind: 'StatefulSet', name: 'db' })).toBe(
      'shop/StatefulSet/db',
    );
  });
});

describe('fleetTargets', () => {
  it('is empty without VPAs or HPAs', () => {
    expect(fleetTargets([], [])).toEqual([]);
  });

  it('makes one target of a VPA and an HPA pointing at the same workload', () => {
    const web = vpa('shop', 'web-vpa', deployment('web'));
    const webHpa = hpa('shop', 'web-hpa', deployment('web'));
    expect(fleetTargets([web], [webHpa])).toEqual([
      {
        key: 'shop/Deployment/web',
        namespace: 'shop',
        ref: deployment('web'),
        vpa: web,
        hpa: webHpa,
      },
    ]);
  });

  it('lists VPA-only and HPA-only workloads, with only the object each has', () => {
    const [api, web] = fleetTargets(
      [vpa('shop', 'web-vpa', deployment('web'))],
      [hpa('shop', 'api-hpa', deployment('api'))],
    );
    expect(api?.key).toBe('shop/Deployment/api');
    expect(api?.vpa).toBeUndefined();
    expect(api?.hpa?.name).toBe('api-hpa');
    expect(web?.key).toBe('shop/Deployment/web');
    expect(web?.vpa?.name).toBe('web-vpa');
    expect(web?.hpa).toBeUndefined();
  });

  it('keeps workloads of the same name apart by namespace and by kind', () => {
    const targets = fleetTargets(
      [
        vpa('shop', 'a', deployment('web')),
        vpa('blog', 'a', deployment('web')),
        vpa('shop', 'b', { kind: 'StatefulSet', name: 'web' }),
      ],
      [],
    );
    expect(targets.map((target) => target.key)).toEqual([
      'blog/Deployment/web',
      'shop/Deployment/web',
      'shop/StatefulSet/web',
    ]);
  });

  it('shows the first VPA and the first HPA by name when several target one workload', () => {
    const vpas = ['web-c', 'web-a', 'web-b'].map((name) =>
      vpa('shop', name, deployment('web')),
    );
    const hpas = ['z', 'm', 'x'].map((name) =>
      hpa('shop', name, deployment('web')),
    );
    for (const order of [vpas, [...vpas].reverse()]) {
      const [target] = fleetTargets(order, [...hpas].reverse());
      expect(target?.vpa?.name).toBe('web-a');
      expect(target?.hpa?.name).toBe('m');
    }
  });

  it('leaves out a ref without a kind or a name', () => {
    expect(
      fleetTargets(
        [vpa('shop', 'no-kind', { kind: '', name: 'web' })],
        [hpa('shop', 'no-name', { kind: 'Deployment', name: '' })],
      ),
    ).toEqual([]);
  });

  it('lists, for any VPAs and HPAs, each targeted workload once, in key order, with its first owners', () => {
    const ref = fc.record({
      kind: fc.constantFrom('Deployment', 'StatefulSet', ''),
      name: fc.constantFrom('web', 'api', 'db', ''),
    });
    const namespace = fc.constantFrom('shop', 'blog', 'ops');
    const owner = fc.record({
      namespace,
      name: fc.stringMatching(/^[a-z]{1,3}$/),
      ref,
    });
    fc.assert(
      fc.property(
        fc.array(owner, { maxLength: 15 }),
        fc.array(owner, { maxLength: 15 }),
        (vpaOwners, hpaOwners) => {
          const vpas = vpaOwners.map((o) => vpa(o.namespace, o.name, o.ref));
          const hpas = hpaOwners.map((o) => hpa(o.namespace, o.name, o.ref));
          const targets = fleetTargets(vpas, hpas);
          const keys = targets.map((target) => target.key);
          expect(new Set(keys).size).toBe(keys.length);
          expect(keys).toEqual([...keys].sort((a, b) => a.localeCompare(b)));
          const expected = new Set(
            [...vpaOwners, ...hpaOwners]
              .filter((o) => o.ref.kind !== '' && o.ref.name !== '')
              .map((o) => workloadKey(o.namespace, o.ref)),
          );
          expect(new Set(keys)).toEqual(expected);
          for (const target of targets) {
            expect(target.key).toBe(workloadKey(target.namespace, target.ref));
            const first = (names: string[]) =>
              names.length === 0 ? undefined : names.sort()[0];
            expect(target.vpa?.name).toBe(
              first(
                vpas
                  .filter(
                    (v) => workloadKey(v.namespace, v.targetRef) === target.key,
                  )
                  .map((v) => v.name),
              ),
            );
            expect(target.hpa?.name).toBe(
              first(
                hpas
                  .filter(
                    (h) => workloadKey(h.namespace, h.targetRef) === target.key,
                  )
                  .map((h) => h.name),
              ),
            );
          }
        },
      ),
    );
  });
});
