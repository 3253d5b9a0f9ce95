import { applyDecorators, ArgumentMetadata, Injectable, ParseUUIDPipe } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { IsUUID } from 'class-validator';

/**
 * A UUID is the same id in capitals or not (RFC 9562). Ids enter in small letters, as PostgreSQL returns
 * them, so that code may compare them as strings.
 */
const inSmallLetters = (value: unknown): unknown => (typeof value === 'string' ? value.toLowerCase() : value);

/** A body or query field that holds a UUID: validated, then kept in small letters. */
export function IsUuidId(): PropertyDecorator {
  return applyDecorators(
    Transform(({ value }) => inSmallLetters(value)),
    IsUUID(),
  );
}

/** A path parameter that holds a UUID: 400 unless it is one, then in small letters. */
@Injectable()
export class UuidParamPipe extends ParseUUIDPipe {
  async transform(value: string, metadata: ArgumentMetadata): Promise<string> {
    return (await super.transform(value, metadata)).toLowerCase();
  }
}
