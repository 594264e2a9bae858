import fc from 'fast-check';
import { UpdateMode } from '@tandem/vpa-api';
import {
  fakeUpdater,
  replicaSetPods,
  vpaOf,
  type FakeUpdater,
  type FakeUpdaterOptions,
} from './updater.fixtures.js';

const ABORTED = 'tandem_updater_cycles_aborted_total';
const LOST = { reason: 'leadership-lost' };

/** Writes the fakes received: pod actions and events. */
const writesOf = (updater: FakeUpdater) =>
  updater.actions.calls.length + updater.events.length;

/** A fake updater whose Lease is lost once `writes` writes have been made. */
function losingLeadAfter(
  writes: number,
  options: FakeUpdaterOptions,
): FakeUpdater {
  const updater: FakeUpdater = fakeUpdater({
    ...options,
    stillLeading: () => writesOf(updater) < writes,
  });
  return updater;
}

/** VPAs `web` and `api` over four replicas each, every pod far below the recommendation. */
function twoVpas(
  at: Date,
  webMode: UpdateMode,
  apiMode = webMode,
): FakeUpdaterOptions {
  return {
    vpas: [vpaOf('web', { mode: webMode }), vpaOf('api', { mode: apiMode })],
    pods: [
      ...replicaSetPods(['50m', '100m', '200m', '300m'], at),
      ...replicaSetPods(['50m', '100m', '200m', '300m'], at, { app: 'api' }),
    ],
  };
}

const abortLogs = (updater: FakeUpdater) =>
  updater.logs.filter((line) => String(line['msg']).startsWith('leadership'));

describe('runUpdaterCycle: a Lease lost mid-cycle', () => {
  it('makes no eviction, event or further VPA pass after the first eviction, logs once and counts the abort', async () => {
    const at = new Date();
    const updater = losingLeadAfter(1, twoVpas(at, UpdateMode.Recreate));

    const summary = await updater.run(at);

    expect(updater.actions.podsOf('evict')).toEqual(['web-1-0']);
    expect(updater.events).toEqual([]);
    // `api`'s pass never ran: its pods are not counted.
    expect(summary).toEqual({
      vpas: 2,
      pods: 4,
      evicted: 1,
      resized: 0,
      errors: 0,
      aborted: 'leadership lost: the cycle was aborted before its next write',
    });
    expect(await updater.metric(ABORTED, LOST)).toBe(1);
    expect(abortLogs(updater)).toHaveLength(1);
    expect(updater.recovered).toEqual([]);
  });

  it('neither annotates nor tells of a resize made just before the Lease was lost', async () => {
    const at = new Date();
    const updater = losingLeadAfter(
      1,
      twoVpas(at, UpdateMode.InPlaceOrRecreate),
    );

    const summary = await updater.run(at);

    expect(updater.actions.calls.map(({ action }) => action)).toEqual([
      'resize',
    ]);
    expect(updater.events).toEqual([]);
    expect(summary).toMatchObject({ resized: 1, errors: 0 });
    expect(summary.aborted).toBeDefined();
    expect(await updater.metric(ABORTED, LOST)).toBe(1);
  });

  it('stays refused for the rest of the cycle even if leadership answers true again', async () => {
    const at = new Date();
    let asked = 0;
    // Lost at the second question only: a flapping answer must not let a write through.
    const updater = fakeUpdater({
      ...twoVpas(at, UpdateMode.Recreate),
      stillLeading: () => ++asked !== 2,
    });

    await updater.run(at);

    expect(writesOf(updater)).toBe(1);
  });

  it('for any point the Lease is lost at, receives exactly the writes before it, in order, and none after', async () => {
    const mode = fc.constantFrom(
      UpdateMode.Recreate,
      UpdateMode.InPlaceOrRecreate,
    );
    await fc.assert(
      fc.asyncProperty(
        mode,
        mode,
        fc.nat({ max: 16 }),
        async (webMode, apiMode, flip) => {
          const at = new Date();
          const leading = fakeUpdater(twoVpas(at, webMode, apiMode));
          await leading.run(at);
          const losing = losingLeadAfter(flip, twoVpas(at, webMode, apiMode));

          const summary = await losing.run(at);

          const all = writesOf(leading);
          expect(writesOf(losing)).toBe(Math.min(flip, all));
          expect(losing.actions.calls).toEqual(
            leading.actions.calls.slice(0, losing.actions.calls.length),
          );
          expect(losing.events).toEqual(
            leading.events.slice(0, losing.events.length),
          );
          expect(summary.aborted !== undefined).toBe(flip < all);
          expect(await losing.metric(ABORTED, LOST)).toBe(flip < all ? 1 : 0);
        },
      ),
      { numRuns: 60 },
    );
  });
});
