import { parseArgs } from 'node:util';
import { FlagError } from '@tandem/flags';
import {
  certificateFlagOptions,
  parseCertificateFlags,
} from './certificate-flags.js';

const parse = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  parseCertificateFlags(
    parseArgs({ args, options: certificateFlagOptions('vpa-webhook') }).values,
    env,
  );

describe('the certificate flags', () => {
  it('leave certificates to the files given unless --certs-secret is set, with upstream-like defaults', () => {
    expect(parse([], { NAMESPACE: 'tandem-system' })).toEqual({
      secret: undefined,
      dir: '/etc/tls-certs',
      identity: {
        commonName: 'vpa-webhook.tandem-system.svc',
        dnsNames: [
          'vpa-webhook',
          'vpa-webhook.tandem-system',
          'vpa-webhook.tandem-system.svc',
          'vpa-webhook.tandem-system.svc.cluster.local',
        ],
        ipAddresses: [],
      },
      lifetimes: {
        caValidityMs: 8760 * 3600_000,
        certValidityMs: 720 * 3600_000,
        caOverlapMs: 3600_000,
      },
    });
  });

  it('take the Secret, names, addresses and lifetimes given', () => {
    const management = parse(
      [
        '--certs-secret=ns/certs',
        '--certs-service=adapter',
        '--certs-dns-names=a.example, b.example',
        '--certs-ip-addresses=127.0.0.1',
        '--cert-validity=30s',
        '--ca-validity=90s',
        '--ca-overlap=10s',
      ],
      { POD_NAMESPACE: 'pods' },
    );
    expect(management.secret).toEqual({ namespace: 'ns', name: 'certs' });
    expect(management.identity.dnsNames).toEqual([
      'adapter',
      'adapter.pods',
      'adapter.pods.svc',
      'adapter.pods.svc.cluster.local',
      'a.example',
      'b.example',
    ]);
    expect(management.identity.ipAddresses).toEqual(['127.0.0.1']);
    expect(management.lifetimes).toEqual({
      caValidityMs: 90_000,
      certValidityMs: 30_000,
      caOverlapMs: 10_000,
    });
  });

  it.each([
    [['--certs-secret=certs'], /--certs-secret must be namespace\/name/],
    [['--ca-overlap=1d'], /--ca-overlap: '1d' is not a duration/],
    [['--ca-validity=5h'], /sixth of --ca-validity/],
  ])('refuse %j', (args, message) => {
    expect(() => parse(args)).toThrow(FlagError);
    expect(() => parse(args)).toThrow(message);
  });
});
