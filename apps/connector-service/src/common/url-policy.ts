import { Injectable } from '@nestjs/common';
import { ConnectorEnv } from '../connector-env';
import { DomainException, FieldProblem, ValidationFailedException } from '@app/errors';
import { OutboundUrlPolicy, URL_RULES } from '@app/outbound';

/** The connector's outbound policy, from ALLOW_INSECURE_URLS and ALLOW_PRIVATE_NETWORKS. */
export const outboundUrlPolicyProvider = {
  provide: OutboundUrlPolicy,
  inject: [ConnectorEnv],
  useFactory: (env: ConnectorEnv) =>
    new OutboundUrlPolicy({
      allowInsecure: env.ALLOW_INSECURE_URLS,
      allowPrivate: env.ALLOW_PRIVATE_NETWORKS,
    }),
};

/** Judges the URLs an admin saves; empty values are skipped. A host name is judged again on every connection. */
@Injectable()
export class UrlPolicy {
  constructor(private readonly policy: OutboundUrlPolicy) {}

  /** 400 VALIDATION_FAILED for a malformed or plain-http URL; else 400 URL_NOT_ALLOWED for a refused address. */
  assertAllowed(urls: Record<string, string | undefined>): void {
    const broken = Object.entries(urls).flatMap(([field, value]) => {
      const rule = value ? this.policy.brokenRule(value) : null;
      return rule ? [{ field, rule }] : [];
    });
    const malformed = broken
      .filter((b) => b.rule !== 'publicAddress')
      .map((b) => problem(b.field, b.rule === 'https' ? 'must be an absolute https URL' : URL_RULES[b.rule]));
    if (malformed.length) throw new ValidationFailedException(summary(malformed), malformed);
    const refused = broken.map((b) => problem(b.field, URL_RULES.publicAddress));
    if (refused.length) throw new DomainException(400, 'URL_NOT_ALLOWED', summary(refused), refused);
  }
}

function problem(field: string, rule: string): FieldProblem {
  return { field, problems: [`${field} ${rule}`] };
}

function summary(problems: FieldProblem[]): string {
  return problems.map((p) => p.problems[0]).join('; ');
}
