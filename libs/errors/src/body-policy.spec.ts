import { Type } from 'class-transformer';
import { IsOptional, IsString, ValidateNested } from 'class-validator';
import { bodyPolicyProblems, FreeForm, MAX_DECLARED_KEYS, MAX_NESTING } from './body-policy';
import { validatePayload } from './validation';

class Item {
  @IsString()
  name: string;

  @IsOptional()
  @FreeForm()
  data?: unknown;
}

class Order {
  @IsString()
  title: string;

  @ValidateNested({ each: true })
  @Type(() => Item)
  items: Item[];

  @IsOptional()
  @FreeForm()
  extra?: unknown;
}

class QueuedOrder extends Order {
  @IsString()
  tenantId: string;
}

const json = (text: string) => JSON.parse(text) as unknown;
const fields = (body: unknown, type: new () => object = Order) =>
  bodyPolicyProblems(body, type)
    .map((p) => p.field)
    .sort();

describe(bodyPolicyProblems.name, () => {
  it('refuses prototype keys at any depth of declared fields, inside arrays of DTOs too', () => {
    expect(fields(json('{"title":"t","items":[{"name":"a","__proto__":{}}],"constructor":1}'))).toEqual([
      'constructor',
      'items[0].__proto__',
    ]);
    expect(fields(json('{"title":"t","items":[],"meta":{"prototype":1}}'))).toEqual(['meta.prototype']);
  });

  it('keeps prototype keys inside free-form fields, at any level of the DTO and in subclasses', () => {
    expect(
      fields(
        json('{"title":"t","items":[{"name":"a","data":{"constructor":1}}],"extra":{"__proto__":{"prototype":2}}}'),
        QueuedOrder,
      ),
    ).toEqual([]);
  });

  it('refuses U+0000 in any string or key, free-form fields included, and escapes it in the field name', () => {
    expect(fields(json('{"title":"a\\u0000","items":[],"extra":{"x":["\\u0000"],"k\\u0000":1}}'))).toEqual([
      'extra.k\\u0000',
      'extra.x[0]',
      'title',
    ]);
    expect(fields('plain\u0000')).toEqual(['body']);
  });

  it('refuses a number beyond the double range (Infinity once parsed, null once written), free-form fields included', () => {
    const body = json('{"title":"t","items":[{"name":"n","data":{"amount":1e309}}],"extra":[-1e400]}');
    expect(fields(body)).toEqual(['extra[0]', 'items[0].data.amount']);
    expect(fields(json('{"title":"t","items":[],"extra":{"amount":1.7976931348623157e308}}'))).toEqual([]);
  });

  it('refuses nesting past the limit without exhausting the stack', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(bodyPolicyProblems({ title: 't', items: [], extra: deep }, Order)[0].problems[0]).toMatch(
      `nested more than ${MAX_NESTING} levels`,
    );
    let chain: unknown = 'leaf';
    for (let i = 0; i < 100_000; i++) chain = { next: chain };
    expect(bodyPolicyProblems({ title: 't', items: [], extra: chain }, Order)[0].field).toBe(
      `extra${'.next'.repeat(MAX_NESTING - 1)}`,
    );
  });

  it('walks a body-sized array of half a million values', () => {
    expect(bodyPolicyProblems({ title: 't', items: [], extra: new Array(500_000).fill(0) }, Order)).toEqual([]);
  });

  it('refuses a declared object of more keys than any DTO has, naming it once, and lets free-form data have more', () => {
    const many = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 0]));
    expect(bodyPolicyProblems(many(140_000), Order)).toEqual([
      { field: 'body', problems: [`body must not have more than ${MAX_DECLARED_KEYS} keys`] },
    ]);
    expect(fields({ title: 't', items: [{ name: 'a', ...many(MAX_DECLARED_KEYS) }] })).toEqual(['items[0]']);
    expect(fields({ title: 't', items: [{ name: 'a', data: many(140_000) }], extra: many(140_000) })).toEqual([]);
  });
});

describe(validatePayload.name, () => {
  it('builds the DTO with free-form values exactly as sent', () => {
    const data = json(
      '{"tenantId":"t1","title":"t","items":[{"name":"a","data":{"constructor":"c"}}],"extra":{"__proto__":{"x":1}}}',
    );
    const { value, problems } = validatePayload(QueuedOrder, data);
    expect(problems).toEqual([]);
    expect(value).toBeInstanceOf(QueuedOrder);
    expect(value.items[0]).toBeInstanceOf(Item);
    expect(JSON.stringify(value.items[0].data)).toBe('{"constructor":"c"}');
    expect(JSON.stringify(value.extra)).toBe('{"__proto__":{"x":1}}');
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('refuses unknown keys and a payload that is not an object', () => {
    expect(validatePayload(Order, { title: 't', items: [], colour: 'blue' }).problems.map((p) => p.field)).toEqual([
      'colour',
    ]);
    expect(validatePayload(Order, ['x']).problems.map((p) => p.field)).toEqual(['body']);
  });

  it('takes a free-form value of 140,000 keys in well under a second (class-transformer never walks it)', () => {
    const data = {
      title: 't',
      items: [],
      extra: Object.fromEntries(Array.from({ length: 140_000 }, (_, i) => [i, 0])),
    };
    const started = Date.now();
    const { value, problems } = validatePayload(Order, data);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(problems).toEqual([]);
    expect(value.extra).toBe(data.extra);
  });
});
