import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { findWorkspaceRoot } from './workspace-root.js';

// The kind path cannot run on machines without Docker, so its files are checked
// statically here, on every `npm test`: schema-valid workflows, a cluster pinned to the
// local control plane's Kubernetes minor, and stage files both paths can apply.
const root = findWorkspaceRoot();
const read = (path: string) => readFileSync(join(root, path), 'utf8');

describe('the kind path', () => {
  const workflows = readdirSync(join(root, '.github', 'workflows')).filter(
    (file) => /\.ya?ml$/.test(file),
  );

  it.each(workflows)(
    'workflow %s passes the GitHub Actions schema (action-validator)',
    (file) => {
      const result = spawnSync(
        join(root, 'node_modules', '.bin', 'action-validator'),
        [join(root, '.github', 'workflows', file)],
        {
          encoding: 'utf8',
        },
      );
      expect({
        status: result.status,
        errors: result.stdout + result.stderr,
      }).toEqual({ status: 0, errors: '' });
    },
  );

  it('pins kind to the Kubernetes minor of the local control plane, with in-place resize on', () => {
    const pinned = /TANDEM_K8S_VERSION:=v(\d+\.\d+)\.\d+/.exec(
      read('e2e/control-plane/common.sh'),
    )?.[1];
    const cluster = parse(read('e2e/kind/cluster.yaml')) as {
      kind: string;
      apiVersion: string;
      featureGates: Record<string, boolean>;
      nodes: { image: string }[];
    };
    expect(cluster).toMatchObject({
      kind: 'Cluster',
      apiVersion: 'kind.x-k8s.io/v1alpha4',
    });
    expect(cluster.featureGates['InPlacePodVerticalScaling']).toBe(true);
    expect(pinned).toBeDefined();
    for (const node of cluster.nodes)
      expect(node.image).toMatch(
        new RegExp(`^kindest/node:v${pinned?.replace('.', '\\.')}\\.\\d+$`),
      );
  });

  it('applies only kwok objects from the shared stage directory, all parseable', () => {
    const directory = join(root, 'e2e', 'control-plane', 'kwok');
    for (const file of readdirSync(directory)) {
      for (const document of parseAllDocuments(
        readFileSync(join(directory, file), 'utf8'),
      )) {
        expect({ file, errors: document.errors.map(String) }).toEqual({
          file,
          errors: [],
        });
        expect((document.toJS() as { apiVersion: string }).apiVersion).toMatch(
          /^kwok\.x-k8s\.io\//,
        );
      }
    }
  });

  it('calls only scripts that exist', () => {
    for (const file of readdirSync(join(root, 'e2e', 'kind')).filter((name) =>
      name.endsWith('.sh'),
    )) {
      const script = read(`e2e/kind/${file}`);
      for (const [, path] of script.matchAll(/"\$ROOT\/([^"$]+\.sh)"/g))
        expect({
          file,
          path,
          exists: existsSync(join(root, path ?? '')),
        }).toEqual({
          file,
          path,
          exists: true,
        });
    }
  });

  // Offline mode (e2e/kind/offline-images.sh, docs/decisions/0014-kind-offline.md).
  it("builds app images from the one recipe, its Node base a build argument pinned to the repository's Node", () => {
    const dockerfile = read('deploy/app.Dockerfile');
    const froms = [...dockerfile.matchAll(/^FROM\s+(\S+)/gm)].map((m) => m[1]);
    const node = (
      JSON.parse(read('package.json')) as {
        devDependencies: Record<string, string>;
      }
    ).devDependencies['node'];
    expect(node).toMatch(/^\d+\.\d+\.\d+$/);
    expect(dockerfile).toContain(
      `\nARG NODE_IMAGE=node:${node}-bookworm-slim\n`,
    );
    // The runtime image is the base without npm, copied whole into scratch (ADR 0020).
    expect(froms).toEqual([
      '${NODE_IMAGE}',
      'deps',
      'build',
      '${NODE_IMAGE}',
      'scratch',
    ]);
    expect(read('e2e/kind/app-images.sh')).toContain(
      '"$ROOT/deploy/app.Dockerfile"',
    );
    expect(
      readdirSync(join(root, 'e2e', 'kind'), { recursive: true }).filter(
        (name) => String(name).endsWith('.Dockerfile'),
      ),
    ).toEqual([]);
  });

  it("bakes a bridge CNI inside kind's default pod subnet, and ctr-compat passes shellcheck", () => {
    const conflist = JSON.parse(read('e2e/kind/base/10-bridge.conflist')) as {
      plugins: { type: string; ipam?: { ranges: { subnet: string }[][] } }[];
    };
    expect(conflist.plugins[0]?.type).toBe('bridge');
    expect(conflist.plugins[0]?.ipam?.ranges[0]?.[0]?.subnet).toMatch(
      /^10\.244\.\d+\.0\/24$/,
    );
    expect(read('e2e/kind/base/containerd-config.toml')).toMatch(
      /^\s*restrict_oom_score_adj = true$/m,
    );
    const result = spawnSync(
      'shellcheck',
      ['--severity=style', join(root, 'e2e', 'kind', 'base', 'ctr-compat')],
      { encoding: 'utf8' },
    );
    expect({ status: result.status, findings: result.stdout }).toEqual({
      status: 0,
      findings: '',
    });
  });

  it('pins every version the offline mode builds next to the control plane pins', () => {
    const common = read('e2e/control-plane/common.sh');
    for (const pin of [
      'TANDEM_KIND_VERSION',
      'TANDEM_CRICTL_VERSION',
      'TANDEM_COREDNS_VERSION',
      'TANDEM_KUBEADM_PAUSE_TAG',
      'TANDEM_KUBEADM_ETCD_TAG',
      'TANDEM_KUBEADM_COREDNS_TAG',
      'TANDEM_KIND_DEBIAN_SUITE',
      'TANDEM_KIND_NPM_VERSION',
    ])
      expect(common).toMatch(new RegExp(`^: "\\$\\{${pin}:=[^}]+\\}"$`, 'm'));
    // The control plane's cache key must not move with the kind path's pins.
    const key = /tandem_cp_version_key\(\) \{[^}]*\}/s.exec(common)?.[0] ?? '';
    expect(key).toContain('TANDEM_K8S_VERSION');
    expect(key).not.toMatch(/KIND|COREDNS|CRICTL/);
  });
});
