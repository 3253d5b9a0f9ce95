import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ValidationFailedException } from '@app/errors';

/** Outbound URLs must be https; plain http only with ALLOW_INSECURE_URLS=true (development, tests). */
@Injectable()
export class UrlPolicy {
  private readonly allowInsecure: boolean;

  constructor(config: ConfigService) {
    this.allowInsecure = config.get<boolean>('ALLOW_INSECURE_URLS') === true;
  }

  /** Throws 400 VALIDATION_FAILED naming every field whose URL is not allowed; empty values are skipped. */
  assertAllowed(urls: Record<string, string | undefined>): void {
    const details = Object.entries(urls)
      .filter(([, value]) => value && !this.allows(value))
      .map(([field]) => ({ field, problems: [`${field} must be an absolute https URL`] }));
    if (details.length) throw new ValidationFailedException(details.map((d) => d.problems[0]).join('; '), details);
  }

  allows(value: string): boolean {
    const protocol = new URL(value).protocol;
    return protocol === 'https:' || (this.allowInsecure && protocol === 'http:');
  }
}
