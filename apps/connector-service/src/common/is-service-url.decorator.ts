import { registerDecorator, ValidationArguments } from 'class-validator';

/** An absolute http(s) URL without embedded credentials. Whether plain http is allowed is UrlPolicy's call. */
export function IsServiceUrl(options: { allowEmpty?: boolean } = {}) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isServiceUrl',
      target: target.constructor,
      propertyName,
      validator: {
        validate: (value: unknown) => (options.allowEmpty && value === '') || isHttpUrl(value),
        defaultMessage: (args: ValidationArguments) => `${args.property} must be an absolute https URL`,
      },
    });
}

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string' || value.length > 2048) return false;
  try {
    const url = new URL(value);
    return ['https:', 'http:'].includes(url.protocol) && Boolean(url.hostname) && !url.username && !url.password;
  } catch {
    return false;
  }
}
