import {
  type ObservedContainerStatus,
  oomsFromPodUpdate,
} from './oom-detection.js';

const FINISHED = '2024-01-01T10:00:00Z';
const oomKilled = { reason: 'OOMKilled', finishedAt: FINISHED };

function pod(memory: string, status: Omit<ObservedContainerStatus, 'name'>) {
  return {
    metadata: { namespace: 'shop', name: 'web-1' },
    spec: {
      containers: [{ name: 'app', resources: { requests: { memory } } }],
    },
    status: {
      phase: 'Running',
      containerStatuses: [{ name: 'app', ...status }],
    },
  };
}

const expected = (memoryBytes: number) => [
  {
    namespace: 'shop',
    podName: 'web-1',
    containerName: 'app',
    timeMs: Date.parse(FINISHED),
    memoryBytes,
  },
];

describe('oomsFromPodUpdate', () => {
  it('sees a new kill, with the new pod request', () => {
    const before = pod('100Mi', { restartCount: 0, state: { running: {} } });
    const after = pod('200Mi', {
      restartCount: 0,
      state: { terminated: oomKilled },
    });
    expect(oomsFromPodUpdate(before, after)).toEqual(
      expected(200 * 1024 * 1024),
    );
  });

  it('sees a kill the container already restarted from, with the old pod request', () => {
    const before = pod('100Mi', { restartCount: 1, state: { running: {} } });
    const after = pod('200Mi', {
      restartCount: 2,
      state: { running: {} },
      lastState: { terminated: oomKilled },
    });
    expect(oomsFromPodUpdate(before, after)).toEqual(
      expected(100 * 1024 * 1024),
    );
  });

  it('does not count the same kill twice, nor other terminations', () => {
    const terminated = pod('100Mi', {
      restartCount: 0,
      state: { terminated: oomKilled },
    });
    expect(oomsFromPodUpdate(terminated, terminated)).toEqual([]);
    const running = pod('100Mi', {
      restartCount: 1,
      state: { running: {} },
      lastState: { terminated: oomKilled },
    });
    expect(oomsFromPodUpdate(running, running)).toEqual([]);
    const completed = pod('100Mi', {
      state: { terminated: { reason: 'Completed', finishedAt: FINISHED } },
    });
    expect(
      oomsFromPodUpdate(pod('100Mi', { state: { running: {} } }), completed),
    ).toEqual([]);
    const noTime = pod('100Mi', {
      state: { terminated: { reason: 'OOMKilled' } },
    });
    expect(
      oomsFromPodUpdate(pod('100Mi', { state: { running: {} } }), noTime),
    ).toEqual([]);
  });
});
