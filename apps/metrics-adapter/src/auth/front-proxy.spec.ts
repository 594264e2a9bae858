import type { RequestHeaderConfig } from './authentication-config.js';
import {
  authenticateFrontProxy,
  frontProxyIdentity,
  isFrontProxyHeader,
} from './front-proxy.js';

const config: RequestHeaderConfig = {
  clientCaPem: undefined,
  requestheaderCaPem: 'PEM',
  allowedNames: ['front-proxy-client'],
  usernameHeaders: ['X-Remote-User'],
  uidHeaders: ['X-Remote-Uid'],
  groupHeaders: ['X-Remote-Group'],
  extraHeaderPrefixes: ['X-Remote-Extra-'],
};

const hpaHeaders = {
  'x-remote-user': [
    'system:serviceaccount:kube-system:horizontal-pod-autoscaler',
  ],
  'x-remote-group': ['system:serviceaccounts', 'system:authenticated'],
};

const verified = {
  socketAuthorized: true,
  peerCommonName: 'front-proxy-client',
};

describe('authenticateFrontProxy', () => {
  it('believes the headers from a verified certificate with an allowed CN', () => {
    expect(
      authenticateFrontProxy({ ...verified, headers: hpaHeaders }, config),
    ).toEqual({
      user: 'system:serviceaccount:kube-system:horizontal-pod-autoscaler',
      groups: ['system:serviceaccounts', 'system:authenticated'],
      extra: {},
      via: 'front-proxy',
    });
  });

  it('ignores the headers when the certificate was not verified', () => {
    expect(
      authenticateFrontProxy(
        {
          socketAuthorized: false,
          peerCommonName: 'front-proxy-client',
          headers: hpaHeaders,
        },
        config,
      ),
    ).toBeUndefined();
  });

  it('ignores the headers from a verified certificate with another CN', () => {
    const input = {
      socketAuthorized: true,
      peerCommonName: 'someone-else',
      headers: hpaHeaders,
    };
    expect(authenticateFrontProxy(input, config)).toBeUndefined();
    expect(frontProxyIdentity(input, config)).toEqual({
      reason:
        'client certificate CN "someone-else" is not in requestheader-allowed-names ["front-proxy-client"]',
    });
    expect(
      authenticateFrontProxy({ ...input, peerCommonName: undefined }, config),
    ).toBeUndefined();
  });

  it('accepts any CN signed by the CA when no names are listed', () => {
    const open = { ...config, allowedNames: [] };
    for (const peerCommonName of ['anything', undefined])
      expect(
        authenticateFrontProxy(
          { socketAuthorized: true, peerCommonName, headers: hpaHeaders },
          open,
        )?.user,
      ).toBe('system:serviceaccount:kube-system:horizontal-pod-autoscaler');
  });

  it('trusts nothing without a requestheader CA, even from a verified socket', () => {
    expect(
      authenticateFrontProxy(
        { ...verified, headers: hpaHeaders },
        { ...config, requestheaderCaPem: undefined },
      ),
    ).toBeUndefined();
  });

  it('falls through when the user header is missing or empty', () => {
    for (const headers of [
      { 'x-remote-group': ['system:masters'] },
      { 'x-remote-user': [''], 'x-remote-group': ['system:masters'] },
    ])
      expect(frontProxyIdentity({ ...verified, headers }, config)).toEqual({
        reason: 'verified front-proxy certificate but no X-Remote-User header',
      });
  });

  it('takes the first non-empty user header, matching names case-insensitively', () => {
    const caller = authenticateFrontProxy(
      {
        ...verified,
        headers: { 'x-forwarded-user': ['second'], 'X-Remote-User': ['first'] },
      },
      { ...config, usernameHeaders: ['x-remote-user', 'X-Forwarded-User'] },
    );
    expect(caller?.user).toBe('first');
    const fallback = authenticateFrontProxy(
      {
        ...verified,
        headers: { 'x-forwarded-user': ['second'], 'x-remote-user': [''] },
      },
      { ...config, usernameHeaders: ['X-Remote-User', 'X-Forwarded-User'] },
    );
    expect(fallback?.user).toBe('second');
  });

  it('collects groups from repeated headers and every group header, skipping empty ones', () => {
    const caller = authenticateFrontProxy(
      {
        ...verified,
        headers: {
          'x-remote-user': ['alice'],
          // As req.headersDistinct presents two X-Remote-Group lines.
          'x-remote-group': ['team-a', 'team,with,commas'],
          'x-other-group': ['', 'ops'],
        },
      },
      { ...config, groupHeaders: ['X-Remote-Group', 'X-Other-Group'] },
    );
    expect(caller?.groups).toEqual(['team-a', 'team,with,commas', 'ops']);
  });

  it('accepts req.headers-style strings too', () => {
    const caller = authenticateFrontProxy(
      {
        ...verified,
        headers: { 'x-remote-user': 'alice', 'x-remote-group': 'team-a' },
      },
      config,
    );
    expect(caller).toMatchObject({ user: 'alice', groups: ['team-a'] });
  });

  it('reads the uid and the extra headers, keys lower-cased and unescaped', () => {
    const caller = authenticateFrontProxy(
      {
        ...verified,
        headers: {
          'x-remote-user': ['alice'],
          'x-remote-uid': ['1234-abcd'],
          'x-remote-extra-scopes': ['view', 'edit'],
          'X-Remote-Extra-Example.com%2FTeam': ['a'],
          'x-remote-extra-bad%zz': ['kept as is'],
          'x-remote-extra-__proto__': ['plain key'],
          'x-remote-extra-': ['no key'],
        },
      },
      config,
    );
    expect(caller?.uid).toBe('1234-abcd');
    expect(caller?.extra).toEqual({
      scopes: ['view', 'edit'],
      'example.com/team': ['a'],
      'bad%zz': ['kept as is'],
      ['__proto__']: ['plain key'],
    });
    expect(Object.getPrototypeOf(caller?.extra)).toBe(Object.prototype);
  });
});

describe('isFrontProxyHeader', () => {
  it('names the configured headers and prefixes, whatever their case', () => {
    expect(isFrontProxyHeader('x-remote-user', config)).toBe(true);
    expect(isFrontProxyHeader('X-REMOTE-GROUP', config)).toBe(true);
    expect(isFrontProxyHeader('x-remote-uid', config)).toBe(true);
    expect(isFrontProxyHeader('x-remote-extra-scopes', config)).toBe(true);
    expect(isFrontProxyHeader('accept', config)).toBe(false);
  });
});
