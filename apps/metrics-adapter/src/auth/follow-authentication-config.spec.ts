import type { ServerResponse } from 'node:http';
import { pino } from 'pino';
import type { RequestHeaderConfig } from './authentication-config.js';
import {
  sendJson,
  startFakeApiServer,
  type FakeApiServer,
} from './fake-api-server.fixtures.js';
import { followAuthenticationConfig } from './follow-authentication-config.js';

const PATH = '/api/v1/namespaces/kube-system/configmaps';

function configMap(resourceVersion: string, data: Record<string, string>) {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'extension-apiserver-authentication',
      namespace: 'kube-system',
      resourceVersion,
    },
    data,
  };
}

const data = {
  'requestheader-client-ca-file': 'CA-1',
  'requestheader-allowed-names': '["front-proxy-client"]',
  'requestheader-username-headers': '["X-Remote-User"]',
  'requestheader-group-headers': '["X-Remote-Group"]',
  'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
};

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('followAuthenticationConfig', () => {
  let api: FakeApiServer;
  const watches: ServerResponse[] = [];

  beforeAll(async () => {
    api = await startFakeApiServer((request, response) => {
      if (request.query.get('watch') === 'true') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.flushHeaders();
        watches.push(response);
        return;
      }
      sendJson(response, 200, {
        apiVersion: 'v1',
        kind: 'ConfigMapList',
        metadata: { resourceVersion: '10' },
        items: [configMap('10', data)],
      });
    });
  });

  afterAll(() => api.close());

  it('hands out the first configuration and every change, keeping the last good one', async () => {
    const configs: RequestHeaderConfig[] = [];
    const errors: unknown[] = [];
    const follower = followAuthenticationConfig({
      connection: api.connection,
      logger: pino({ level: 'silent' }),
      onChange: (config) => configs.push(config),
      onError: (error) => errors.push(error),
    });
    try {
      await until(() => follower.synced(), 'the first configuration');
      expect(configs).toEqual([
        expect.objectContaining({
          requestheaderCaPem: 'CA-1',
          allowedNames: ['front-proxy-client'],
        }),
      ]);
      const list = api.requests.find((r) => r.query.get('watch') !== 'true');
      expect(list?.path).toBe(PATH);
      expect(list?.query.get('fieldSelector')).toBe(
        'metadata.name=extension-apiserver-authentication',
      );

      await until(() => watches.length === 1, 'the watch');
      const send = (type: string, object: unknown) =>
        watches[0]?.write(`${JSON.stringify({ type, object })}\n`);

      // Same data, new resourceVersion: nothing to apply.
      send('MODIFIED', configMap('11', data));
      // Malformed: reported, the last good configuration stays.
      send(
        'MODIFIED',
        configMap('12', { ...data, 'requestheader-allowed-names': 'oops' }),
      );
      await until(() => errors.length === 1, 'the parse error');
      expect(String(errors[0])).toContain('requestheader-allowed-names');
      // The CA rotates.
      send(
        'MODIFIED',
        configMap('13', { ...data, 'requestheader-client-ca-file': 'CA-2' }),
      );
      await until(() => configs.length === 2, 'the rotated configuration');
      expect(configs[1]?.requestheaderCaPem).toBe('CA-2');
      send('DELETED', configMap('14', data));
      send(
        'MODIFIED',
        configMap('15', { ...data, 'requestheader-client-ca-file': 'CA-2' }),
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(configs).toHaveLength(2);
      expect(follower.synced()).toBe(true);
    } finally {
      await follower.stop();
    }
  });
});
