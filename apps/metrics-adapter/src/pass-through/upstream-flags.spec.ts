import { FlagError } from '@tandem/flags';
import { parseFlags } from '../flags.js';
import { parseUpstreamProvider } from './upstream-flags.js';

describe('--upstream-provider', () => {
  it('is off by default', () => {
    expect(parseFlags([]).upstreamProvider).toBeUndefined();
  });

  it('takes an https Service URL with its CA, kept as the origin', () => {
    expect(
      parseFlags([
        '--upstream-provider=https://prometheus-adapter.monitoring.svc:443/',
        '--upstream-provider-ca-file=/etc/upstream/ca.crt',
      ]).upstreamProvider,
    ).toEqual({
      url: 'https://prometheus-adapter.monitoring.svc',
      caFile: '/etc/upstream/ca.crt',
    });
    expect(parseUpstreamProvider('https://10.0.0.7:6443', '/ca.pem')).toEqual({
      url: 'https://10.0.0.7:6443',
      caFile: '/ca.pem',
    });
  });

  it.each([
    ['http://adapter.monitoring.svc', '/ca.pem', /only verified TLS/],
    ['adapter.monitoring.svc', '/ca.pem', /is not a URL/],
    ['https://adapter.monitoring.svc/apis', '/ca.pem', /has a path/],
    ['https://adapter.monitoring.svc?x=1', '/ca.pem', /has a path or query/],
    ['https://u:p@adapter.monitoring.svc', '/ca.pem', /carries credentials/],
    ['https://adapter.monitoring.svc', '', /needs --upstream-provider-ca-file/],
    ['', '/ca.pem', /without --upstream-provider/],
  ])('refuses %j with CA %j', (url, caFile, message) => {
    expect(() => parseUpstreamProvider(url, caFile)).toThrow(FlagError);
    expect(() => parseUpstreamProvider(url, caFile)).toThrow(message);
  });
});
