import { resizeFallback } from './resize-fallback.js';
import { isResizeOngoing, readResizeState } from './resize-state.js';
import type { PodCondition } from './updater-pod.js';
import {
  at,
  container,
  HOUR,
  MINUTE,
  NOW,
  podWith,
  resizeCondition,
} from './updater.fixtures.js';

function stateOf(...conditions: PodCondition[]) {
  return readResizeState(podWith([container('app')], { conditions }));
}

describe('readResizeState (§5.6)', () => {
  it.each([
    ['no conditions', [], 'None'],
    [
      'Pending/Deferred',
      [resizeCondition('PodResizePending', { reason: 'Deferred' })],
      'Deferred',
    ],
    [
      'Pending/Infeasible',
      [resizeCondition('PodResizePending', { reason: 'Infeasible' })],
      'Infeasible',
    ],
    [
      'Pending, other reason',
      [resizeCondition('PodResizePending', { reason: 'Odd' })],
      'Unknown',
    ],
    [
      'InProgress, bare',
      [resizeCondition('PodResizeInProgress')],
      'InProgress',
    ],
    [
      'InProgress/Error',
      [
        resizeCondition('PodResizeInProgress', {
          reason: 'Error',
          message: 'boom',
        }),
      ],
      'Error',
    ],
    [
      'InProgress, message only',
      [resizeCondition('PodResizeInProgress', { message: 'working' })],
      'Unknown',
    ],
    [
      'Pending False',
      [
        resizeCondition('PodResizePending', {
          status: 'False',
          reason: 'Deferred',
        }),
      ],
      'None',
    ],
  ] as const)('%s → %s', (_name, conditions, status) => {
    expect(stateOf(...conditions).status).toBe(status);
  });

  it('reads only the first resize condition, as upstream does', () => {
    const conditions = [
      resizeCondition('PodResizeInProgress', { status: 'False' }),
      resizeCondition('PodResizePending', { reason: 'Infeasible' }),
    ];
    expect(isResizeOngoing(podWith([container('app')], { conditions }))).toBe(
      false,
    );
  });

  it('keeps the lastTransitionTime of the deciding condition', () => {
    expect(
      stateOf(
        resizeCondition('PodResizePending', {
          reason: 'Deferred',
          lastTransitionTime: at(0),
        }),
      ),
    ).toEqual({ status: 'Deferred', sinceMs: NOW.getTime() });
  });
});

describe('resizeFallback (InPlaceOrRecreate transitions, §5.6)', () => {
  const since = (ms: number) => NOW.getTime() - ms;

  it.each([
    [
      'Deferred for exactly 5m',
      { status: 'Deferred', sinceMs: since(5 * MINUTE) },
      'wait',
    ],
    [
      'Deferred for 5m + 1ms',
      { status: 'Deferred', sinceMs: since(5 * MINUTE + 1) },
      'fall-back-to-eviction',
    ],
    [
      'InProgress for exactly 1h',
      { status: 'InProgress', sinceMs: since(HOUR) },
      'wait',
    ],
    [
      'InProgress for 1h + 1ms',
      { status: 'InProgress', sinceMs: since(HOUR + 1) },
      'fall-back-to-eviction',
    ],
    [
      'Infeasible just now',
      { status: 'Infeasible', sinceMs: since(0) },
      'fall-back-to-eviction',
    ],
    [
      'Error just now',
      { status: 'Error', sinceMs: since(0) },
      'fall-back-to-eviction',
    ],
    ['Unknown', { status: 'Unknown' }, 'fall-back-to-eviction'],
    ['Deferred without a time', { status: 'Deferred' }, 'wait'],
    ['no resize', { status: 'None' }, 'wait'],
  ] as const)('%s → %s', (_name, state, action) => {
    expect(resizeFallback(state, NOW).action).toBe(action);
  });

  it('says why', () => {
    expect(
      resizeFallback({ status: 'Deferred', sinceMs: since(HOUR) }, NOW).reason,
    ).toBe('the resize has been deferred for more than 5m');
  });
});
