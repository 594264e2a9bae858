import { API_SERVICE_NAMES, apiServiceCaBundle } from './apiservice-ca.js';
import {
  apiStatus,
  sendJson,
  startFakeApiServer,
  type FakeApiServer,
} from './auth/fake-api-server.fixtures.js';
import type { ApiServiceRoute } from './pass-through/apiservice-route.js';

const OWN_HOST = 'tandem-metrics-adapter.tandem.svc';
const CA_PEM = '-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n';
const CA_BUNDLE = Buffer.from(CA_PEM).toString('base64');
const PATH = '/apis/apiregistration.k8s.io/v1/apiservices';
const [V1BETA2, V1BETA1] = API_SERVICE_NAMES;

/** The APIServices as stored, by name; a missing one answers 404. */
let stored: Record<string, { caBundle?: string; service: object }>;
let api: FakeApiServer;

beforeAll(async () => {
  api = await startFakeApiServer((request, response) => {
    const name = request.path.slice(PATH.length + 1);
    const spec = stored[name];
    if (spec === undefined)
      return sendJson(
        response,
        404,
        apiStatus(404, 'NotFound', `apiservices "${name}" not found`),
      );
    sendJson(response, 200, {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name },
      spec,
    });
  });
});

afterAll(() => api.close());

beforeEach(() => {
  api.requests.length = 0;
  const own = { name: 'tandem-metrics-adapter', namespace: 'tandem' };
  stored = {
    [V1BETA2]: { caBundle: 'b2xk', service: own },
    [V1BETA1]: { caBundle: CA_BUNDLE, service: own },
  };
});

describe('apiServiceCaBundle', () => {
  it('patches in the CA where it differs, as a JSON patch', async () => {
    const write = apiServiceCaBundle(api.connection, OWN_HOST, () => {
      throw new Error('not routed elsewhere');
    });
    expect(await write(CA_PEM)).toEqual([V1BETA2]);
    expect(
      api.requests.map((request) => `${request.method} ${request.path}`),
    ).toEqual([
      `GET ${PATH}/${V1BETA2}`,
      `PATCH ${PATH}/${V1BETA2}`,
      `GET ${PATH}/${V1BETA1}`,
    ]);
    const patch = api.requests[1];
    expect(patch?.headers['content-type']).toBe('application/json-patch+json');
    expect(patch?.body).toEqual([
      { op: 'add', path: '/spec/caBundle', value: CA_BUNDLE },
    ]);
  });

  it('leaves an APIService routed to another provider alone', async () => {
    const upstream = { name: 'prometheus-adapter', namespace: 'monitoring' };
    stored[V1BETA2] = { service: upstream };
    const elsewhere: [string, ApiServiceRoute][] = [];
    const write = apiServiceCaBundle(api.connection, OWN_HOST, (name, spec) =>
      elsewhere.push([name, spec]),
    );
    expect(await write(CA_PEM)).toEqual([]);
    expect(elsewhere).toEqual([[V1BETA2, { service: upstream }]]);
    expect(api.requests.map((request) => request.method)).toEqual([
      'GET',
      'GET',
    ]);
  });

  it('rejects with the status when an APIService cannot be read', async () => {
    delete stored[V1BETA2];
    const write = apiServiceCaBundle(api.connection, OWN_HOST, () => undefined);
    await expect(write(CA_PEM)).rejects.toMatchObject({ code: 404 });
  });
});
