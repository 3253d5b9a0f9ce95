import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { getMetadataStorage } from 'class-validator';
import * as yaml from 'js-yaml';
import { validateEnv } from '@app/config';

const KUBERNETES = resolve(__dirname, '../../../deploy/kubernetes');
const HEALTH = { liveness: '/health/live', readiness: '/health/ready' };
/** Where a worker, which serves no API, answers Prometheus (METRICS_PORT). */
const WORKER_METRICS_PORT = 9464;

/** Well-formed stand-ins for the Secret's values, which stay out of git. */
const SAMPLE_SECRETS: Record<string, string> = {
  DATABASE_URL: 'postgres://service:password@postgres:5432/platform',
  REDIS_URL: 'redis://redis:6379',
  AUTH_JWT_SECRET: 'IdEG3Xv_mHnIkHVmJpugzTah-dWa_E7LGr_F5xpLLz4',
  ENCRYPTION_KEY: 'k1:LW8cNwgD5HLdEkQC1QsmW/F2HO5nTcQbY7Ol0uPh88k=',
  WEBHOOK_SIGNING_SECRET: `whsec_${Buffer.alloc(24, 7).toString('base64')}`,
};

interface Container {
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
      spec: { containers: Container[] };
    };
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

    it('probes the API on /health/live and /health/ready at the port the service listens on (PORT)', () => {
      const api = container('api');
      const port = api.ports.find((p) => p.name === 'http')!;
      expect(port.containerPort).toBe(Number(config.PORT));
      expect(api.livenessProbe.httpGet).toEqual({ path: HEALTH.liveness, port: 'http' });
      expect(api.readinessProbe.httpGet).toEqual({ path: HEALTH.readiness, port: 'http' });
      // Workers serve nothing but /metrics (on METRICS_PORT), so an HTTP probe of the API's paths would fail them forever.
      expect(container('worker').livenessProbe).toBeUndefined();
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
