import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { getMetadataStorage } from 'class-validator';
import * as yaml from 'js-yaml';
import { AppEnv, validateEnv } from '@app/config';

const KUBERNETES = resolve(__dirname, '../../../deploy/kubernetes');
const HEALTH = { liveness: '/health/live', readiness: '/health/ready' };
/** What an API pod's shutdown takes past its drain and grace: Nest's hooks closing queues, agents and pools. */
const SHUTDOWN_HOOKS_SECONDS = 10;
/** Where a worker, which serves no API, answers Prometheus (METRICS_PORT). */
const WORKER_METRICS_PORT = 9464;

/** Well-formed stand-ins for the Secret's values, which stay out of git. */
const SAMPLE_SECRETS: Record<string, string> = {
  DATABASE_URL: 'postgres://service:password@postgres:5432/platform',
  REDIS_URL: 'redis://redis:6379',
  AUTH_JWT_SECRET: 'IdEG3Xv_mHnIkHVmJpugzTah-dWa_E7LGr_F5xpLLz4',
  ENCRYPTION_KEY: 'k1:LW8cNwgD5HLdEkQC1QsmW/F2HO5nTcQbY7Ol0uPh88k=',
  WEBHOOK_SIGNING_SECRET: 'whsec_qz7SCRFb33Lv06dD5Sl3JWAEqDk8P9v9',
  METRICS_TOKEN: 'kS0m9oF2r7Qx4Lw1Zc8Vb3Nt',
};

/** What a pod of ours may not reach: private, loopback, link-local and CGNAT ranges, and their IPv6 kin. */
const NOT_PUBLIC_V4 = [
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.168.0.0/16',
];
const NOT_PUBLIC_V6 = ['::1/128', '::ffff:0:0/96', 'fc00::/7', 'fe80::/10'];

interface SecurityContext {
  runAsNonRoot?: boolean;
  seccompProfile?: { type: string };
  allowPrivilegeEscalation?: boolean;
  readOnlyRootFilesystem?: boolean;
  capabilities?: { drop?: string[]; add?: string[] };
}

interface EgressRule {
  to?: Array<{
    ipBlock?: { cidr: string; except?: string[] };
    podSelector?: { matchLabels?: Record<string, string> };
    namespaceSelector?: { matchLabels?: Record<string, string> };
  }>;
  ports?: Array<{ protocol?: string; port: number }>;
}

interface Container {
  securityContext: SecurityContext;
  volumeMounts?: Array<{ name: string; mountPath: string }>;
  env: unknown;
  envFrom: unknown;
  resources: { requests: unknown; limits: unknown };
  ports: Array<{ name: string; containerPort: number }>;
  livenessProbe: { httpGet: unknown };
  readinessProbe: { httpGet: unknown };
}

interface Manifest {
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  /** The fields the checks read, of whichever kind of manifest has them: a check fails on a shape it does not expect. */
  spec: {
    template: {
      metadata: { labels: unknown; annotations?: Record<string, string> };
      spec: {
        containers: Container[];
        securityContext: SecurityContext;
        volumes?: Array<{ name: string; emptyDir?: object }>;
        terminationGracePeriodSeconds?: number;
      };
    };
    /** A NetworkPolicy's. */
    podSelector: { matchLabels?: Record<string, string> };
    policyTypes: string[];
    egress: EgressRule[];
    /** A Service's labels, or a Deployment's or budget's `matchLabels`. */
    selector: { matchLabels?: unknown };
    ports: Array<{ targetPort: unknown }>;
    scaleTargetRef: unknown;
    minReplicas: number;
  };
}

/**
 * Declares the checks of deploy/kubernetes/<service>.yaml against the service's env class: an API and a
 * worker Deployment, probes on the real health paths and port, and a configuration the service accepts.
 */
export function describeKubernetesManifests(service: string, envClass: new () => object): void {
  describe(`deploy/kubernetes for ${service}`, () => {
    const manifests = yaml.loadAll(readFileSync(join(KUBERNETES, `${service}.yaml`), 'utf8')) as Manifest[];
    const named = (kind: string, name: string) => manifests.find((m) => m.kind === kind && m.metadata.name === name);
    const config = named('ConfigMap', service)!.data!;
    const secretKeys = envFileKeys(join(KUBERNETES, 'secrets', `${service}.env.example`));
    const deployment = (role: string) => named('Deployment', `${service}-${role}`)!;
    const container = (role: string) => deployment(role).spec.template.spec.containers[0];

    it('has one API and one worker Deployment, each with its PROCESS_ROLE, resources and the shared configuration', () => {
      const deployments = manifests.filter((m) => m.kind === 'Deployment').map((m) => m.metadata.name);
      expect(deployments.sort()).toEqual([`${service}-api`, `${service}-worker`]);
      expect(container('api').env).toEqual([{ name: 'PROCESS_ROLE', value: 'api' }]);
      expect(container('worker').env).toEqual([
        { name: 'PROCESS_ROLE', value: 'worker' },
        { name: 'METRICS_PORT', value: String(WORKER_METRICS_PORT) },
      ]);
      for (const role of ['api', 'worker']) {
        expect(container(role).envFrom).toEqual([
          { configMapRef: { name: service } },
          { secretRef: { name: service } },
        ]);
        expect(Object.keys(container(role).resources).sort()).toEqual(['limits', 'requests']);
        expect(container(role).resources.requests).toEqual({ cpu: expect.any(String), memory: expect.any(String) });
        expect(container(role).resources.limits).toEqual({ cpu: expect.any(String), memory: expect.any(String) });
      }
    });

    it('probes the API on /health/live and /health/ready at the port the service listens on (PORT), a worker on /health/live at METRICS_PORT', () => {
      const api = container('api');
      const port = api.ports.find((p) => p.name === 'http')!;
      expect(port.containerPort).toBe(Number(config.PORT));
      expect(api.livenessProbe.httpGet).toEqual({ path: HEALTH.liveness, port: 'http' });
      expect(api.readinessProbe.httpGet).toEqual({ path: HEALTH.readiness, port: 'http' });
      // A worker serves no API: its liveness is answered on METRICS_PORT, and it takes no traffic to be ready for.
      expect(container('worker').livenessProbe.httpGet).toEqual({ path: HEALTH.liveness, port: 'metrics' });
      expect(container('worker').readinessProbe).toBeUndefined();
    });

    it('lets an API pod drain, finish its requests in flight and close before Kubernetes kills it', () => {
      const secrets = Object.fromEntries(secretKeys.map((name) => [name, SAMPLE_SECRETS[name] ?? 'sample']));
      const env = validateEnv(envClass, { ...config, ...secrets, PROCESS_ROLE: 'api' }) as AppEnv;
      // The drain is the app's own (readiness 503 while it serves on): it needs no preStop sleep.
      expect(env.SHUTDOWN_DRAIN_MS).toBeGreaterThanOrEqual(3_000);
      const needed = (env.SHUTDOWN_DRAIN_MS + env.SHUTDOWN_GRACE_MS) / 1000 + SHUTDOWN_HOOKS_SECONDS;
      expect(deployment('api').spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(needed);
    });

    it('lets Prometheus scrape /metrics of every pod: the API on its HTTP port, a worker on METRICS_PORT', () => {
      expect(container('worker').ports).toEqual([{ name: 'metrics', containerPort: WORKER_METRICS_PORT }]);
      const scrape = (role: string) => deployment(role).spec.template.metadata.annotations;
      expect(scrape('api')).toEqual({
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': config.PORT,
        'prometheus.io/path': '/metrics',
      });
      expect(scrape('worker')).toEqual({
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': String(WORKER_METRICS_PORT),
        'prometheus.io/path': '/metrics',
      });
    });

    it('puts the API behind a Service, a disruption budget on each Deployment and an autoscaler on the workers', () => {
      const labels = (role: string) => deployment(role).spec.template.metadata.labels;
      expect(named('Service', service)!.spec.selector).toEqual(labels('api'));
      expect(named('Service', service)!.spec.ports[0].targetPort).toBe('http');
      for (const role of ['api', 'worker']) {
        expect(deployment(role).spec.selector.matchLabels).toEqual(labels(role));
        expect(named('PodDisruptionBudget', `${service}-${role}`)!.spec.selector.matchLabels).toEqual(labels(role));
      }
      const autoscaler = named('HorizontalPodAutoscaler', `${service}-worker`)!;
      expect(autoscaler.spec.scaleTargetRef).toEqual({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        name: `${service}-worker`,
      });
      expect(autoscaler.spec.minReplicas).toBeGreaterThanOrEqual(1);
    });

    it('believes X-Forwarded-For from the ingress (TRUST_PROXY) and takes METRICS_TOKEN from the Secret', () => {
      expect(config.TRUST_PROXY).toMatch(/\S/);
      expect(secretKeys).toContain('METRICS_TOKEN');
      expect(config.METRICS_TOKEN).toBeUndefined();
      // /metrics stays closed but to the token: nothing opens it to whoever reaches the pod.
      expect(config.METRICS_PUBLIC).toBeUndefined();
      expect(secretKeys).not.toContain('METRICS_PUBLIC');
      for (const role of ['api', 'worker'])
        expect(container(role).env).not.toContainEqual(expect.objectContaining({ name: 'METRICS_PUBLIC' }));
    });

    it('runs every container unprivileged: RuntimeDefault seccomp, no capabilities, a read-only root with an emptyDir for what it writes', () => {
      for (const role of ['api', 'worker']) {
        const pod = deployment(role).spec.template.spec;
        expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
        for (const c of pod.containers) {
          expect(c.securityContext).toEqual({
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
            capabilities: { drop: ['ALL'] },
          });
          const scratch = (c.volumeMounts ?? []).find((m) => m.mountPath === '/tmp');
          expect(pod.volumes).toContainEqual({ name: scratch?.name, emptyDir: expect.any(Object) });
        }
      }
      // Whatever the service writes to its file system goes under the emptyDir.
      for (const dir of [config.BLOB_DIR].filter(Boolean)) expect(dir).toMatch(/^\/tmp\//);
    });

    it('lets every pod reach only DNS, PostgreSQL, Redis and public addresses (NetworkPolicy egress)', () => {
      const policies = manifests.filter((m) => m.kind === 'NetworkPolicy');
      expect(policies.map((p) => p.metadata.name)).toEqual([service]);
      const [policy] = policies;
      expect(policy.spec.podSelector.matchLabels).toEqual({ 'app.kubernetes.io/name': service });
      for (const role of ['api', 'worker'])
        expect(deployment(role).spec.template.metadata.labels).toMatchObject(policy.spec.podSelector.matchLabels!);
      expect(policy.spec.policyTypes).toEqual(['Egress']);
      const rules = policy.spec.egress;
      const portsOf = (rule: EgressRule) => (rule.ports ?? []).map((p) => `${p.protocol ?? 'TCP'}/${p.port}`).sort();
      const byPorts = (ports: string[]) => rules.filter((r) => JSON.stringify(portsOf(r)) === JSON.stringify(ports));
      // DNS, PostgreSQL and Redis: their pods only, by label, on their port only.
      for (const [ports, name] of [
        [['TCP/53', 'UDP/53'], 'kube-dns'],
        [['TCP/5432'], 'postgresql'],
        [['TCP/6379'], 'redis'],
      ] as const) {
        const [rule] = byPorts([...ports]);
        expect(rule?.to?.length).toBeGreaterThan(0);
        for (const peer of rule!.to!) {
          expect(peer.ipBlock).toBeUndefined();
          expect(Object.values(peer.podSelector?.matchLabels ?? {})).toContain(name);
        }
      }
      // The rest: any port, but only public addresses.
      const open = rules.filter((r) => !r.ports);
      expect(open).toHaveLength(1);
      const blocks = open[0].to!.map((peer) => peer.ipBlock);
      expect(blocks).toHaveLength(2);
      const v4 = blocks.find((b) => b?.cidr === '0.0.0.0/0');
      const v6 = blocks.find((b) => b?.cidr === '::/0');
      expect(v4?.except).toEqual(expect.arrayContaining(NOT_PUBLIC_V4));
      expect(v6?.except).toEqual(expect.arrayContaining(NOT_PUBLIC_V6));
      // No other rule reaches anything: every rule names its peers.
      expect(rules.every((r) => (r.to?.length ?? 0) > 0)).toBe(true);
      expect(rules).toHaveLength(4);
    });

    it('names only variables the service reads, and provides every one it requires', () => {
      const known = new Set([
        ...Object.keys(new envClass()),
        ...getMetadataStorage()
          .getTargetValidationMetadatas(envClass, '', true, false)
          .map((m) => m.propertyName),
      ]);
      expect([...Object.keys(config), ...secretKeys].filter((name) => !known.has(name))).toEqual([]);
      expect(secretKeys).toEqual(
        expect.arrayContaining(['AUTH_JWT_SECRET', 'ENCRYPTION_KEY', 'DATABASE_URL', 'REDIS_URL']),
      );
      const secrets = Object.fromEntries(secretKeys.map((name) => [name, SAMPLE_SECRETS[name] ?? 'sample']));
      for (const role of ['api', 'worker']) {
        expect(() => validateEnv(envClass, { ...config, ...secrets, PROCESS_ROLE: role })).not.toThrow();
      }
    });

    it('generates the Secret from a git-ignored env file beside the example', () => {
      const kustomization = yaml.load(readFileSync(join(KUBERNETES, 'kustomization.yaml'), 'utf8')) as {
        resources: string[];
        secretGenerator: Array<{ name: string; envs: string[] }>;
      };
      expect(kustomization.resources).toContain(`${service}.yaml`);
      expect(kustomization.secretGenerator).toContainEqual({ name: service, envs: [`secrets/${service}.env`] });
      expect(readFileSync(join(KUBERNETES, 'secrets/.gitignore'), 'utf8')).toContain('*.env');
    });
  });
}

function envFileKeys(file: string): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => /^[A-Z][A-Z0-9_]*=/.test(line))
    .map((line) => line.slice(0, line.indexOf('=')));
}
