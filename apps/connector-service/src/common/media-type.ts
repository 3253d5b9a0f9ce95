/** `type/subtype` in HTTP's token characters (RFC 9110), no parameters: what a Content-Type header may carry. */
export const MEDIA_TYPE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,127}\/[!#$%&'*+.^_`|~0-9A-Za-z-]{1,127}$/;

export function isMediaType(text: string): boolean {
  return MEDIA_TYPE.test(text);
}

/** A stored media type as it may be sent; bytes of no known type when it is none. */
export function sendableMediaType(text: string): string {
  return isMediaType(text) ? text : 'application/octet-stream';
}

/** The media type a Content-Type header names (its parameters left out), or none when it names none. */
export function headerMediaType(header: string): string | undefined {
  const type = header.split(';', 1)[0].trim();
  return isMediaType(type) ? type : undefined;
}

/** The longest media type isMediaType takes. */
export const MAX_MEDIA_TYPE_LENGTH = 255;
