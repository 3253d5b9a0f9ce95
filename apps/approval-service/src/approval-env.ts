import { IsBoolean, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { BaseEnv, booleanFromEnv, IsUnguessableSigningSecrets } from '@app/config';

export class ApprovalEnv extends BaseEnv {
  PORT: number = 3002;
  PUBLIC_BASE_URL = 'http://localhost:3002';

  /** Allow plain-http webhook URLs (local development and tests only). */
  @IsBoolean()
  @booleanFromEnv()
  WEBHOOK_ALLOW_INSECURE: boolean = false;

  /** Allow webhook URLs that resolve to loopback, private, link-local or metadata addresses. */
  @IsBoolean()
  @booleanFromEnv()
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: boolean = false;

  /**
   * `whsec_…` (Standard Webhooks); when set every delivery is signed. Several, separated by spaces, while rotating:
   * one signature each. Unset or empty: unsigned. A placeholder, a short key or no base64 stops the service.
   */
  @IsOptional()
  @IsString()
  @IsUnguessableSigningSecrets()
  WEBHOOK_SIGNING_SECRET?: string;

  /** Every webhook and approval carries a decisionPageUrl, a page where a person approves or denies; false: none, and the pages answer 404. */
  @IsBoolean()
  @booleanFromEnv()
  DECISION_PAGE: boolean = true;

  /** Callbacks accepted per client address per minute; more get 429 RATE_LIMITED. */
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  CALLBACK_RATE_LIMIT_PER_MINUTE: number = 1200;

  /** Callbacks accepted per callbackId and token per minute, from whatever addresses; more get 429 RATE_LIMITED. */
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  CALLBACK_RATE_LIMIT_PER_CALLBACK_PER_MINUTE: number = 60;

  /** The longest a `POST /v1/approvals/test-webhook` waits for the receiver, whatever its timeoutSeconds (at most 30 s). */
  @IsInt()
  @Min(1)
  @Max(30)
  WEBHOOK_TEST_MAX_SECONDS: number = 30;

  /** How often workers relay decision events their writers could not publish at once. */
  @IsInt()
  @Min(50)
  @Max(60_000)
  OUTBOX_POLL_MS: number = 1000;

  /** The shortest decisionTimeoutSeconds a request may ask for (the longest is 2592000, 30 days). */
  @IsInt()
  @Min(1)
  @Max(2_592_000)
  DECISION_TIMEOUT_MIN_SECONDS: number = 60;

  /**
   * The shortest webhook.remindAfterSeconds a request may ask for (the contract's is 300; the longest is
   * 604800, a week). Lower it only in tests, so that reminders come within seconds.
   */
  @IsInt()
  @Min(1)
  @Max(604_800)
  WEBHOOK_REMIND_MIN_SECONDS: number = 300;

  /** How often workers look for approvals past their decision deadline whose deadline job was lost. */
  @IsInt()
  @Min(100)
  @Max(60_000)
  DECISION_TIMEOUT_SWEEP_MS: number = 2000;

  /**
   * How often workers look for reminder rounds whose job was lost (Redis restarted without its data) and add
   * them again, once a round is a few seconds overdue.
   */
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  REMINDER_SWEEP_MS: number = 60_000;

  /**
   * Delivery slots of one worker process. The slots of every worker are shared between the tenants with
   * attempts waiting: one tenant's attempts hold at most half of them (docs/fair-share.md).
   */
  @IsInt()
  @Min(1)
  @Max(500)
  DELIVERY_SLOTS: number = 50;

  /**
   * A first attempt that a worker sent itself and that outlived intake's short wait is sent again this
   * long after its deadline should that worker die. Keep it above the 60 s a statement waits out a
   * database outage, or a live attempt may be sent twice.
   */
  @IsInt()
  @Min(1000)
  @Max(3_600_000)
  DELIVERY_STRANDED_AFTER_MS: number = 90_000;

  /**
   * How often workers look for Pending approvals that nothing will send any more (their queued attempt was
   * lost with Redis's data, or could not be written) and send them on from their logged attempts.
   */
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  DELIVERY_SWEEP_MS: number = 60_000;
}
