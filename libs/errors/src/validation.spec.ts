import { IsString } from 'class-validator';
import { validatePayload } from './validation';

/** A job that carries nothing, as a sweep's does. */
class NothingJob {}

class NamedJob {
  @IsString()
  name!: string;
}

describe(validatePayload.name, () => {
  it('takes an empty object for a payload class that declares no field', () => {
    expect(validatePayload(NothingJob, {}).problems).toEqual([]);
    expect(validatePayload(NothingJob, undefined).problems).toEqual([]);
  });

  it('refuses any key for a payload class that declares no field', () => {
    expect(validatePayload(NothingJob, { extra: 1 }).problems).toEqual([
      { field: 'extra', problems: ['property extra should not exist'] },
    ]);
  });

  it('still checks a payload class with fields as before', () => {
    expect(validatePayload(NamedJob, { name: 'a' }).problems).toEqual([]);
    expect(validatePayload(NamedJob, { name: 'a', extra: 1 }).problems).toEqual([
      { field: 'extra', problems: ['property extra should not exist'] },
    ]);
  });
});
