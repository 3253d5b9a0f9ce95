import { IsInt, IsString, Min, registerDecorator, validateSync } from 'class-validator';
import { validatePayload } from './validation';

class Base {
  @IsString()
  name!: string;
}

class Derived extends Base {
  @IsInt()
  @Min(1, { groups: ['strict'] })
  count!: number;
}

class LateRules {
  @IsString()
  label!: string;
}

const problemsOf = (cls: new () => object, data: object) => validatePayload(cls, data).problems.map((p) => p.field);

describe('validation with the rules of each class looked up once', () => {
  it('still applies the rules a class inherits, on every validation', () => {
    for (let i = 0; i < 3; i++) {
      expect(problemsOf(Derived, { name: 42, count: 1 })).toEqual(['name']);
      expect(problemsOf(Derived, { name: 'a', count: 'x' })).toEqual(['count']);
      expect(problemsOf(Base, { name: 'a', count: 1 })).toEqual(['count']); // unknown to Base: refused
    }
  });

  it('keeps the rules of one group apart from those of another', () => {
    const derived = Object.assign(new Derived(), { name: 'a', count: 0 });
    expect(validateSync(derived, { groups: ['other'], forbidUnknownValues: false })).toEqual([]);
    expect(validateSync(derived, { groups: ['strict'] }).map((e) => e.property)).toEqual(['count']);
    expect(validateSync(derived, { groups: ['other'], forbidUnknownValues: false })).toEqual([]);
  });

  it('keeps the rules with and without strict groups apart', () => {
    const derived = Object.assign(new Derived(), { name: 'a', count: 0 });
    expect(validateSync(derived).map((e) => e.property)).toEqual(['count']);
    expect(validateSync(derived, { strictGroups: true })).toEqual([]);
    expect(validateSync(derived).map((e) => e.property)).toEqual(['count']);
  });

  it('applies a rule registered after the class was first validated', () => {
    expect(problemsOf(LateRules, { label: 'short' })).toEqual([]);
    registerDecorator({
      target: LateRules,
      propertyName: 'label',
      validator: { validate: (value: unknown) => typeof value === 'string' && value.length > 6 },
      options: { message: 'label must be longer than 6 characters' },
    });
    expect(problemsOf(LateRules, { label: 'short' })).toEqual(['label']);
    expect(problemsOf(LateRules, { label: 'long enough' })).toEqual([]);
  });
});
