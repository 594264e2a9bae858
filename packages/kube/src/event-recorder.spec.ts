import type { Server } from 'node:http';
import { plainConnection } from './connection/kube-connection.js';
import type { EventSubject } from './event-correlation.js';
import { eventRecorder } from './event-recorder.js';
import { standInApiServer, type Seen } from './stand-in-api-server.fixtures.js';

const pod: EventSubject = {
  apiVersion: 'v1',
  kind: 'Pod',
  namespace: 'shop',
  name: 'web-1',
  uid: 'u-1',
};

describe('eventRecorder', () => {
  let server: Server | undefined;
  afterEach(() => server?.close());

  async function recorder(
    respond: (seen: Seen) => { status: number } = () => ({ status: 201 }),
    options: Parameters<typeof eventRecorder>[2] = {},
  ) {
    const standIn = await standInApiServer(respond);
    server = standIn.server;
    const recovered: unknown[] = [];
    const record = eventRecorder(plainConnection(standIn.url), 'tandem-test', {
      recovered: (error) => recovered.push(error),
      ...options,
    });
    return { record, seen: standIn.seen, recovered };
  }

  it('returns at once, then creates the Event in the object’s namespace', async () => {
    const { record, seen } = await recorder();
    expect(record(pod, 'Normal', 'EvictedByVPA', 'evicted')).toBeUndefined();
    expect(seen).toHaveLength(0);
    await record.drained();
    expect(seen).toEqual([
      {
        method: 'POST',
        path: '/api/v1/namespaces/shop/events',
        contentType: 'application/json',
        body: expect.objectContaining({
          involvedObject: pod,
          reason: 'EvictedByVPA',
          message: 'evicted',
          count: 1,
          source: { component: 'tandem-test' },
        }) as unknown,
      },
    ]);
  });

  it('patches count, lastTimestamp and message of a repeated event, in order', async () => {
    const { record, seen } = await recorder();
    record(pod, 'Normal', 'Waiting', 'same');
    record(pod, 'Normal', 'Waiting', 'same');
    await record.drained();
    const name = (seen[0]?.body as { metadata: { name: string } }).metadata
      .name;
    expect(seen[1]).toEqual({
      method: 'PATCH',
      path: `/api/v1/namespaces/shop/events/${name}`,
      contentType: 'application/strategic-merge-patch+json',
      body: {
        count: 2,
        lastTimestamp: expect.any(String) as unknown,
        message: 'same',
      },
    });
  });

  it('creates the Event again when the one to patch has expired', async () => {
    const { record, seen, recovered } = await recorder(({ method }) => ({
      status: method === 'PATCH' ? 404 : 201,
    }));
    record(pod, 'Normal', 'Waiting', 'same');
    record(pod, 'Normal', 'Waiting', 'same');
    await record.drained();
    expect(seen.map(({ method }) => method)).toEqual(['POST', 'PATCH', 'POST']);
    expect(seen[2]?.body).toMatchObject({ count: 2 });
    expect(recovered).toEqual([]);
  });

  it('reports a refused write and goes on with the next', async () => {
    const { record, seen, recovered } = await recorder(({ body }) => ({
      status: (body as { reason: string }).reason === 'Bad' ? 403 : 201,
    }));
    record(pod, 'Normal', 'Bad', 'refused');
    record(pod, 'Normal', 'Good', 'written');
    await record.drained();
    expect(seen).toHaveLength(2);
    expect(recovered).toEqual([
      expect.objectContaining({ code: 403 }) as unknown,
    ]);
  });

  it('drops what exceeds the queue, and says so', async () => {
    const { record, seen, recovered } = await recorder(undefined, {
      queueLimit: 2,
    });
    for (const reason of ['A', 'B', 'C', 'D'])
      record(pod, 'Normal', reason, 'm');
    await record.drained();
    // The first write left the queue at once; the next two waited; the fourth found it full.
    expect(seen.map(({ body }) => (body as { reason: string }).reason)).toEqual(
      ['A', 'B', 'C'],
    );
    expect(String(recovered[0])).toContain(
      'event D on Pod shop/web-1 dropped: 2 writes are waiting',
    );
  });

  it('never rejects when the API server cannot be reached', async () => {
    const recovered: unknown[] = [];
    const record = eventRecorder(
      plainConnection('http://127.0.0.1:1'),
      'tandem-test',
      { recovered: (error) => recovered.push(error) },
    );
    record(pod, 'Warning', 'Unreachable', 'm');
    await record.drained();
    expect(recovered).toHaveLength(1);
  });
});
