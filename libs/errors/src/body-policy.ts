import { applyDecorators } from '@nestjs/common';
import { Exclude } from 'class-transformer';
import { defaultMetadataStorage } from 'class-transformer/cjs/storage';
import { Allow } from 'class-validator';
import type { FieldProblem } from './domain.exception';
import { LONE_SURROGATE } from './storable-text';

/** A DTO class: the type whose declared fields are walked. */
type DtoClass = abstract new (...args: never[]) => object;

const FREE_FORM = 'body-policy:free-form';
/** Keys that name an object's prototype machinery: never a field, at any depth of declared fields. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
export const MAX_NESTING = 64;
/**
 * Far more keys than any DTO declares, refused before class-transformer, whose dedupe of an object's keys is
 * quadratic (docs/security.md). Free-form values are never transformed, so they are not capped.
 */
export const MAX_DECLARED_KEYS = 200;
const MAX_PROBLEMS = 20;

/**
 * A field whose value is data, not a DTO: any JSON, kept exactly as sent (never merged into an
 * object, so keys such as `constructor` stay plain data). Still checked for U+0000 and nesting depth.
 */
export const FreeForm = () =>
  applyDecorators(Exclude({ toClassOnly: true }), Allow(), (target: object, key: string | symbol) =>
    Reflect.defineMetadata(FREE_FORM, true, target, key),
  );

interface Frame {
  value: object;
  type?: DtoClass;
  /** Where the value sits, built only when a problem is reported. */
  path: () => string;
  freeForm: boolean;
  depth: number;
}

/** Why PostgreSQL would refuse a text (as text, or inside JSON), or null when it takes it. */
function unstorableText(text: string): string | null {
  if (text.includes('\u0000')) return 'must not contain U+0000';
  if (LONE_SURROGATE.test(text)) return 'must not contain a lone surrogate (half of a UTF-16 pair)';
  return null;
}

/**
 * What no payload may carry, whatever its DTO: a string or key with U+0000 or a lone surrogate (PostgreSQL
 * refuses them), a number JSON.parse made Infinity (it would be kept as null), a prototype key in a declared
 * field, a declared object of more than MAX_DECLARED_KEYS keys, nesting deeper than MAX_NESTING. Iterative, so
 * depth cannot exhaust the stack. Empty means the payload may go on to class validation.
 */
export function bodyPolicyProblems(body: unknown, type?: DtoClass): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const unstorable = typeof body === 'string' ? unstorableText(body) : null;
  if (unstorable) problems.push(problem('', unstorable));
  const stack: Frame[] = isObject(body) ? [{ value: body, type, path: () => '', freeForm: false, depth: 0 }] : [];
  while (stack.length && problems.length < MAX_PROBLEMS) {
    const frame = stack.pop()!;
    if (frame.depth >= MAX_NESTING)
      problems.push(problem(frame.path(), `must not be nested more than ${MAX_NESTING} levels deep`));
    else visitChildren(frame, stack, problems);
  }
  return problems;
}

function visitChildren({ value, type, path, freeForm, depth }: Frame, stack: Frame[], problems: FieldProblem[]): void {
  const visit = (child: unknown, childPath: () => string, childType: DtoClass | undefined, free: boolean) => {
    if (typeof child === 'string') {
      const unstorable = unstorableText(child);
      if (unstorable) problems.push(problem(childPath(), unstorable));
    } else if (typeof child === 'number' && !Number.isFinite(child)) {
      // JSON.parse reads 1e309 as Infinity, which JSON.stringify writes as null: the value would be lost.
      problems.push(problem(childPath(), 'must be a number within ±1.7976931348623157e308'));
    } else if (isObject(child) && !ArrayBuffer.isView(child))
      stack.push({ value: child, type: childType, path: childPath, freeForm: free, depth: depth + 1 });
  };
  if (Array.isArray(value)) {
    for (let i = value.length - 1; i >= 0; i--) visit(value[i], () => `${path()}[${i}]`, type, freeForm);
    return;
  }
  const keys = Object.keys(value);
  if (!freeForm && keys.length > MAX_DECLARED_KEYS) {
    problems.push(problem(path(), `must not have more than ${MAX_DECLARED_KEYS} keys`));
    return;
  }
  for (let k = keys.length - 1; k >= 0; k--) {
    const key = keys[k];
    const childPath = () => join(path(), printable(key));
    const unstorableKey = unstorableText(key);
    if (unstorableKey) problems.push(problem(childPath(), `name ${unstorableKey}`));
    else if (!freeForm && PROTOTYPE_KEYS.has(key))
      problems.push({ field: childPath(), problems: [`property ${key} should not exist`] });
    else {
      const free = freeForm || isFreeForm(type, key);
      visit((value as Record<string, unknown>)[key], childPath, free ? undefined : nestedType(type, key), free);
    }
  }
}

/** Puts free-form values back, exactly as sent, on an instance class-transformer built without them. */
export function restoreFreeForm(target: unknown, plain: unknown, type?: DtoClass): void {
  if (!type || !isObject(target) || !isObject(plain)) return;
  if (Array.isArray(plain)) {
    if (Array.isArray(target)) plain.forEach((item, i) => restoreFreeForm(target[i], item, type));
    return;
  }
  for (const key of Object.keys(plain)) {
    const value = (plain as Record<string, unknown>)[key];
    if (isFreeForm(type, key)) (target as Record<string, unknown>)[key] = value;
    else restoreFreeForm((target as Record<string, unknown>)[key], value, nestedType(type, key));
  }
}

function isFreeForm(type: DtoClass | undefined, key: string): boolean {
  return !!type?.prototype && Reflect.getMetadata(FREE_FORM, type.prototype, key) === true;
}

function nestedType(type: DtoClass | undefined, key: string): DtoClass | undefined {
  if (!type) return undefined;
  const metadata = defaultMetadataStorage.findTypeMetadata(type, key);
  const nested: unknown = metadata?.typeFunction ? metadata.typeFunction() : metadata?.reflectedType;
  return typeof nested === 'function' && nested !== Object && nested !== Array ? (nested as DtoClass) : undefined;
}

function join(parent: string, key: string): string {
  return parent ? `${parent}.${key}` : key;
}

function isObject(value: unknown): value is object {
  return value !== null && typeof value === 'object';
}

function problem(field: string, rule: string): FieldProblem {
  const name = field || 'body';
  return { field: name, problems: [`${name} ${rule}`] };
}

/** A key as it may appear in a message or log: control characters (below U+0020) escaped. */
function printable(key: string): string {
  let out = '';
  for (const c of key)
    out += c.charCodeAt(0) < 0x20 || LONE_SURROGATE.test(c) ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c;
  return out;
}
