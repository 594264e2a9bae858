import fc from 'fast-check';
import { stringify } from 'yaml';
import { selectKubeconfig, type KubeconfigText } from './kubeconfig-file.js';

const WHERE = '/a/config:/b/config (KUBECONFIG)';

/** A kubeconfig text from plain lists, as kubectl writes them. */
function kubeconfig(parts: {
  clusters?: [name: string, cluster: Record<string, unknown>][];
  users?: [name: string, user: Record<string, unknown>][];
  contexts?: [name: string, cluster: string, user?: string][];
  current?: string;
}): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: (parts.clusters ?? []).map(([name, cluster]) => ({
      name,
      cluster,
    })),
    users: (parts.users ?? []).map(([name, user]) => ({ name, user })),
    contexts: (parts.contexts ?? []).map(([name, cluster, user]) => ({
      name,
      context: { cluster, ...(user === undefined ? {} : { user }) },
    })),
    ...(parts.current === undefined
      ? {}
      : { 'current-context': parts.current }),
  });
}

const file = (path: string, text: string): KubeconfigText => ({ path, text });

describe('selectKubeconfig', () => {
  it('answers the cluster and user of the current context', () => {
    const text = kubeconfig({
      clusters: [
        ['prod', { server: 'https://prod.example:6443/' }],
        ['dev', { server: 'https://dev.example:6443' }],
      ],
      users: [
        ['admin', { token: 'secret' }],
        ['dev', { username: 'u', password: 'p' }],
      ],
      contexts: [
        ['prod', 'prod', 'admin'],
        ['dev', 'dev', 'dev'],
      ],
      current: 'prod',
    });
    expect(selectKubeconfig([file('/a/config', text)], WHERE)).toEqual({
      context: 'prod',
      cluster: {
        server: 'https://prod.example:6443',
        insecureSkipTlsVerify: false,
      },
      user: { token: 'secret' },
    });
  });

  it('reads every TLS and credential field under its kubeconfig name', () => {
    const text = kubeconfig({
      clusters: [
        [
          'c',
          {
            server: 'https://c.example',
            'certificate-authority-data': 'Q0E=',
            'insecure-skip-tls-verify': true,
            'tls-server-name': 'api.internal',
          },
        ],
      ],
      users: [
        [
          'u',
          {
            token: 't',
            'client-certificate-data': 'Q0VSVA==',
            'client-key-data': 'S0VZ',
            username: 'name',
            password: 'word',
          },
        ],
      ],
      contexts: [['x', 'c', 'u']],
      current: 'x',
    });
    expect(selectKubeconfig([file('/a/config', text)], WHERE)).toEqual({
      context: 'x',
      cluster: {
        server: 'https://c.example',
        certificateAuthorityData: 'Q0E=',
        insecureSkipTlsVerify: true,
        tlsServerName: 'api.internal',
      },
      user: {
        token: 't',
        clientCertificateData: 'Q0VSVA==',
        clientKeyData: 'S0VZ',
        username: 'name',
        password: 'word',
      },
    });
  });

  it('keeps insecure-skip-tls-verify off unless it is the boolean true', () => {
    const text = kubeconfig({
      clusters: [
        [
          'c',
          { server: 'https://c.example', 'insecure-skip-tls-verify': 'true' },
        ],
      ],
      contexts: [['x', 'c']],
      current: 'x',
    });
    expect(
      selectKubeconfig([file('/a/config', text)], WHERE).cluster
        .insecureSkipTlsVerify,
    ).toBe(false);
  });

  it('treats a context without a known user as anonymous', () => {
    const text = kubeconfig({
      clusters: [['c', { server: 'https://c.example' }]],
      contexts: [
        ['no-user', 'c'],
        ['missing-user', 'c', 'ghost'],
      ],
      current: 'no-user',
    });
    expect(selectKubeconfig([file('/a/config', text)], WHERE).user).toEqual({});
    expect(
      selectKubeconfig([file('/a/config', text)], WHERE, 'missing-user').user,
    ).toEqual({});
  });

  describe('merging several files as kubectl does', () => {
    const first = kubeconfig({
      clusters: [['shared', { server: 'https://first.example' }]],
      users: [['shared', { token: 'first' }]],
      contexts: [['shared', 'shared', 'shared']],
      current: 'shared',
    });
    const second = kubeconfig({
      clusters: [
        ['shared', { server: 'https://second.example' }],
        ['only-second', { server: 'https://only-second.example' }],
      ],
      users: [
        ['shared', { token: 'second' }],
        ['only-second', { token: 'only-second' }],
      ],
      contexts: [
        ['shared', 'only-second', 'only-second'],
        ['mixed', 'shared', 'only-second'],
      ],
      current: 'mixed',
    });
    const files = [file('/a/config', first), file('/b/config', second)];

    it('lets the first file that defines a context win, and its current-context', () => {
      expect(selectKubeconfig(files, WHERE)).toMatchObject({
        context: 'shared',
        cluster: { server: 'https://first.example' },
        user: { token: 'first' },
      });
    });

    it('lets the first file that defines a cluster or user win for contexts of later files', () => {
      expect(selectKubeconfig(files, WHERE, 'mixed')).toMatchObject({
        context: 'mixed',
        cluster: { server: 'https://first.example' },
        user: { token: 'only-second' },
      });
    });

    it('takes the current-context of a later file when earlier ones set none or an empty one', () => {
      const noCurrent = kubeconfig({
        clusters: [['c', { server: 'https://c.example' }]],
        contexts: [['a', 'c']],
        current: '',
      });
      const withCurrent = kubeconfig({
        contexts: [['b', 'c']],
        current: 'b',
      });
      expect(
        selectKubeconfig(
          [file('/a/config', noCurrent), file('/b/config', withCurrent)],
          WHERE,
        ).context,
      ).toBe('b');
    });

    it('skips empty list items', () => {
      const holes = 'clusters:\n- \nusers: [null]\ncontexts: [null]\n';
      expect(
        selectKubeconfig(
          [file('/e/holes', holes), file('/a/config', first)],
          WHERE,
        ).cluster.server,
      ).toBe('https://first.example');
    });

    it('ignores empty files and entries that are not lists', () => {
      const odd = 'clusters: {}\nusers: 3\ncontexts: text\n';
      expect(
        selectKubeconfig(
          [file('/e/empty', ''), file('/e/odd', odd), file('/a/config', first)],
          WHERE,
        ).cluster.server,
      ).toBe('https://first.example');
    });
  });

  it('picks the first definition of every name, whatever the files repeat', () => {
    const names = ['p', 'q', 'r'];
    const oneFile = fc.record({
      clusters: fc.subarray(names),
      contexts: fc.subarray(names),
      current: fc.option(fc.constantFrom(...names), { nil: undefined }),
    });
    fc.assert(
      fc.property(
        fc.array(oneFile, { minLength: 1, maxLength: 4 }),
        fc.option(fc.constantFrom(...names), { nil: undefined }),
        (defined, asked) => {
          const files = defined.map((one, index) =>
            file(
              `/f${index}/config`,
              kubeconfig({
                clusters: one.clusters.map((name) => [
                  name,
                  { server: `https://${name}.${index}.example` },
                ]),
                contexts: one.contexts.map((name) => [
                  name,
                  names[(names.indexOf(name) + index) % names.length] ?? '',
                ]),
                current: one.current,
              }),
            ),
          );
          const chosen = asked ?? defined.find((one) => one.current)?.current;
          const contextFile = defined.findIndex(
            (one) => chosen !== undefined && one.contexts.includes(chosen),
          );
          const clusterName =
            chosen === undefined
              ? undefined
              : names[(names.indexOf(chosen) + contextFile) % names.length];
          const clusterFile = defined.findIndex(
            (one) =>
              clusterName !== undefined && one.clusters.includes(clusterName),
          );
          const select = () => selectKubeconfig(files, WHERE, asked);
          if (contextFile < 0 || clusterFile < 0) expect(select).toThrow();
          else
            expect(select()).toMatchObject({
              context: chosen,
              cluster: {
                server: `https://${clusterName}.${clusterFile}.example`,
              },
            });
        },
      ),
    );
  });

  describe('errors that say what is wrong', () => {
    const text = kubeconfig({
      clusters: [['c', { server: 'https://c.example' }]],
      contexts: [
        ['one', 'c'],
        ['two', 'c'],
        ['broken', 'missing'],
      ],
    });

    it('lists the known contexts when the requested one is missing', () => {
      expect(() =>
        selectKubeconfig([file('/a/config', text)], WHERE, 'three'),
      ).toThrow(
        `context three is not in ${WHERE}; known contexts: one, two, broken`,
      );
      expect(() =>
        selectKubeconfig([file('/a/config', '')], WHERE, 'three'),
      ).toThrow(`context three is not in ${WHERE}; known contexts: none`);
    });

    it('says there is no current context', () => {
      expect(() => selectKubeconfig([file('/a/config', text)], WHERE)).toThrow(
        `the current context (none) of ${WHERE} names no cluster`,
      );
      expect(() =>
        selectKubeconfig(
          [file('/a/config', kubeconfig({ current: 'gone' }))],
          WHERE,
        ),
      ).toThrow(`the current context (gone) of ${WHERE} names no cluster`);
    });

    it('refuses a context whose cluster is missing or has no server', () => {
      expect(() =>
        selectKubeconfig([file('/a/config', text)], WHERE, 'broken'),
      ).toThrow(`the current context (broken) of ${WHERE} names no cluster`);
      const serverless = kubeconfig({
        clusters: [['c', { 'certificate-authority-data': 'Q0E=' }]],
        contexts: [['x', 'c']],
        current: 'x',
      });
      expect(() =>
        selectKubeconfig([file('/a/config', serverless)], WHERE),
      ).toThrow(`the current context (x) of ${WHERE} names no cluster`);
    });

    it('names the file that is not valid YAML and keeps the parser error as cause', () => {
      let thrown: unknown;
      try {
        selectKubeconfig(
          [file('/a/config', text), file('/b/config', 'clusters: [\n')],
          WHERE,
        );
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(Error);
      expect((thrown as Error).message).toMatch(
        /^cannot load kubeconfig \/b\/config: /,
      );
      expect((thrown as Error).cause).toBeInstanceOf(Error);
    });
  });

  describe('file paths', () => {
    const clusterFile = kubeconfig({
      clusters: [
        [
          'c',
          {
            server: 'https://c.example',
            'certificate-authority': 'pki/ca.crt',
          },
        ],
      ],
      contexts: [['x', 'c', 'u']],
      current: 'x',
    });
    const userFile = kubeconfig({
      users: [
        [
          'u',
          {
            tokenFile: 'token',
            'client-certificate': '../certs/client.crt',
            'client-key': '/abs/client.key',
          },
        ],
      ],
    });

    it('resolves relative paths against the directory of the file that defines them', () => {
      expect(
        selectKubeconfig(
          [
            file('/home/me/.kube/config', clusterFile),
            file('/etc/kube/users/config', userFile),
          ],
          WHERE,
        ),
      ).toEqual({
        context: 'x',
        cluster: {
          server: 'https://c.example',
          certificateAuthority: '/home/me/.kube/pki/ca.crt',
          insecureSkipTlsVerify: false,
        },
        user: {
          tokenFile: '/etc/kube/users/token',
          clientCertificate: '/etc/kube/certs/client.crt',
          clientKey: '/abs/client.key',
        },
      });
    });
  });

  describe('credential plugins', () => {
    const withUser = (user: Record<string, unknown>) => [
      file(
        '/a/config',
        kubeconfig({
          clusters: [['c', { server: 'https://c.example' }]],
          users: [['u', user]],
          contexts: [['x', 'c', 'u']],
          current: 'x',
        }),
      ),
    ];

    it('marks a user with exec credentials', () => {
      const exec = {
        apiVersion: 'client.authentication.k8s.io/v1',
        command: 'kubelogin',
      };
      expect(selectKubeconfig(withUser({ exec }), WHERE).user).toEqual({
        plugin: 'exec',
      });
    });

    it('marks a user with an auth-provider', () => {
      const authProvider = { name: 'oidc', config: { 'id-token': 'x' } };
      expect(
        selectKubeconfig(withUser({ 'auth-provider': authProvider }), WHERE)
          .user,
      ).toEqual({ plugin: 'auth-provider' });
    });

    it('does not mark a user whose plugin fields are null', () => {
      const user = selectKubeconfig(
        withUser({ token: 't', exec: null, 'auth-provider': null }),
        WHERE,
      ).user;
      expect(user).toEqual({ token: 't' });
      expect(user).not.toHaveProperty('plugin');
    });
  });
});
