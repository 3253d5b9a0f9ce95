/** The part of js-yaml (a dependency of @nestjs/swagger, which ships no types here) that the checks use. */
declare module 'js-yaml' {
  export function load(text: string): unknown;
  export function loadAll(text: string): unknown[];
}
