import 'reflect-metadata';
import { Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsIP,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  Min,
  MinLength,
  ValidateBy,
  ValidationArguments,
} from 'class-validator';
import { IsUnguessableKeyring, IsUnguessableSecret } from './secret-strength';
import { IsTrustProxy } from './trust-proxy';

export const PROCESS_ROLES = ['api', 'worker', 'all'] as const;
export type ProcessRole = (typeof PROCESS_ROLES)[number];

/** Reads the raw value: implicit conversion would turn the string "false" into true. */
export const booleanFromEnv = () =>
  Transform(({ obj, key }) => {
    const raw: unknown = obj[key];
    return typeof raw === 'string' ? ['1', 'true', 'yes'].includes(raw.trim().toLowerCase()) : raw;
  });

/** An absolute https URL; plain http only while ALLOW_INSECURE_URLS is true. */
const SecureUrlUnlessInsecureAllowed = () =>
  ValidateBy({
    name: 'secureUrl',
    validator: {
      validate: (value: unknown, args?: ValidationArguments) => {
        const allowed = (args?.object as BaseEnv | undefined)?.ALLOW_INSECURE_URLS ? ['https:', 'http:'] : ['https:'];
        return typeof value === 'string' && URL.canParse(value) && allowed.includes(new URL(value).protocol);
      },
      defaultMessage: (args?: ValidationArguments) =>
        `${args?.property} must be an https URL (http only with ALLOW_INSECURE_URLS=true)`,
    },
  });

/** A cluster has database 0 only: a REDIS_URL naming another would be ignored there, not kept apart. */
const OnlyDatabaseZeroInCluster = () =>
  ValidateBy({
    name: 'onlyDatabaseZeroInCluster',
    validator: {
      validate: (value: unknown, args?: ValidationArguments) => {
        const url = (args?.object as BaseEnv | undefined)?.REDIS_URL;
        if (typeof value !== 'string' || !value.trim() || !url || !URL.canParse(url)) return true;
        return ['', '/', '/0'].includes(new URL(url).pathname);
      },
      defaultMessage: () => 'REDIS_URL must name no database but 0 when REDIS_CLUSTER_NODES is set',
    },
  });

/** Variables every app reads, the simulator included: its port and address, logging and the HTTP setup. */
export class AppEnv {
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT: number;

  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  PUBLIC_BASE_URL: string;

  /** The address the HTTP server listens on (an IP); unset: every interface. `npm start` sets 127.0.0.1. */
  @IsOptional()
  @IsIP()
  BIND_ADDRESS?: string;

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL = 'info';

  /** Browser origins allowed to call this service (comma-separated); empty: no CORS headers at all. */
  @Matches(/^\s*$|^\s*https?:\/\/[^/,\s]+\s*(,\s*https?:\/\/[^/,\s]+\s*)*$/, {
    message: 'CORS_ORIGINS must be comma-separated origins such as https://console.example.com',
  })
  CORS_ORIGINS = '';

  /** Forwarding proxies whose X-Forwarded-For is believed: a hop count or addresses/CIDR ranges; empty: none. */
  @IsTrustProxy()
  TRUST_PROXY: string = '';

  /**
   * On shutdown, how long the HTTP server goes on serving, readiness answering 503, before it takes no new
   * connection: load balancers have that long to stop sending to it.
   */
  @IsInt()
  @Min(0)
  @Max(600_000)
  SHUTDOWN_DRAIN_MS: number = 5_000;

  /** On shutdown, how long requests in flight may run on before every connection still open is closed. */
  @IsInt()
  @Min(0)
  @Max(600_000)
  SHUTDOWN_GRACE_MS: number = 10_000;
}

/** Variables every service with a database and Redis reads. Each app extends this with its own. */
export class BaseEnv extends AppEnv {
  @Matches(/^postgres(ql)?:\/\//, { message: 'DATABASE_URL must be a postgres:// connection string' })
  DATABASE_URL: string;

  @Matches(/^rediss?:\/\//, { message: 'REDIS_URL must be a redis:// URL' })
  REDIS_URL = 'redis://127.0.0.1:6379';

  /**
   * When set, Redis is a Redis Cluster reached through these nodes (`host:port`, comma-separated);
   * REDIS_URL's user, password and TLS then hold for every node, and its host is not used.
   */
  @IsOptional()
  @Matches(/^\s*$|^\s*(\[[\da-f:.]+\]|[\w.-]+):\d{1,5}\s*(,\s*(\[[\da-f:.]+\]|[\w.-]+):\d{1,5}\s*)*$/i, {
    message: 'REDIS_CLUSTER_NODES must be comma-separated host:port pairs such as redis-0:6379,redis-1:6379',
  })
  @OnlyDatabaseZeroInCluster()
  REDIS_CLUSTER_NODES?: string;

  /**
   * Prefix of every Redis key this service writes (Bull queues); lets test runs share one Redis. On a
   * cluster the keys go under `{QUEUE_PREFIX}`, a hash tag.
   */
  @IsString()
  QUEUE_PREFIX = 'bull';

  /** How long a job stays claimed without a sign of life before another worker takes it again (renewed every half of it). */
  @IsInt()
  @Min(1000)
  @Max(600_000)
  QUEUE_LOCK_DURATION_MS: number = 8000;

  /** How often workers look for jobs whose lock expired (their worker died) and put them back to waiting. */
  @IsInt()
  @Min(500)
  @Max(600_000)
  QUEUE_STALLED_INTERVAL_MS: number = 2000;

  /** Refused at start when it is a placeholder this repository publishes, or guessable. */
  @IsString()
  @MinLength(32, { message: 'AUTH_JWT_SECRET must be at least 32 characters' })
  @IsUnguessableSecret()
  AUTH_JWT_SECRET: string;

  /**
   * The longest life of a platform token, in seconds: `exp - iat` above it is refused (401), and so
   * is a token without `iat` that has longer than this left.
   */
  @IsInt()
  @Min(60)
  @Max(31_536_000)
  JWT_MAX_TTL: number = 86_400;

  /** RS256 keys; https only (http with ALLOW_INSECURE_URLS), since whoever serves them can mint tokens. */
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  @SecureUrlUnlessInsecureAllowed()
  AUTH_JWKS_URL?: string;

  /** When set, a platform token's `iss` must equal it. */
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  AUTH_JWT_ISSUER?: string;

  /** When set, a platform token's `aud` must be (or contain) it. */
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  AUTH_JWT_AUDIENCE?: string;

  /** Allow plain-http addresses where https is the rule (local development and tests only). */
  @IsBoolean()
  @booleanFromEnv()
  ALLOW_INSECURE_URLS: boolean = false;

  /** `kid:base64key[,kid:base64key…]` (first is current) or one base64 32-byte key; each key 32 random bytes. */
  @IsString()
  @IsUnguessableKeyring()
  ENCRYPTION_KEY: string;

  @IsIn(PROCESS_ROLES)
  PROCESS_ROLE: ProcessRole = 'all';

  /**
   * The platform operators' tenant: only its admins open the queue dashboard, which shows every tenant's
   * jobs. Unset, the dashboard refuses everyone.
   */
  @IsOptional()
  @IsString()
  QUEUE_DASHBOARD_TENANT?: string;

  /** When set, GET /metrics needs `Authorization: Bearer <METRICS_TOKEN>`; empty: see METRICS_PUBLIC. */
  @IsOptional()
  @Matches(/^(\S{16,})?$/, { message: 'METRICS_TOKEN must be at least 16 characters, without blanks' })
  METRICS_TOKEN?: string;

  /**
   * Without METRICS_TOKEN, GET /metrics answers 401 to everyone (closed by default); true opens it to
   * whoever reaches the port. A METRICS_TOKEN, when set, is required whatever this says.
   */
  @IsBoolean()
  @booleanFromEnv()
  METRICS_PUBLIC: boolean = false;

  /** Worker-only processes (PROCESS_ROLE=worker) serve GET /metrics on this port; unset: not at all. */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(65535)
  METRICS_PORT?: number;
}

export const servesApi = (role: ProcessRole) => role !== 'worker';
export const runsWorkers = (role: ProcessRole) => role !== 'api';
