import { QueryFailedError } from 'typeorm';
import { isInfrastructureError } from './infrastructure-error';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe(isInfrastructureError.name, () => {
  it.each([
    ['a refused connection', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['a connection the server dropped', new Error('Connection terminated unexpectedly')],
    ['a pool that could not connect in time', new Error('timeout exceeded when trying to connect')],
    ['a server shutting down', withCode('terminating connection due to administrator command', '57P01')],
    ['a server starting up', withCode('the database system is starting up', '57P03')],
    ['too many connections', withCode('sorry, too many clients already', '53300')],
    ['a deadlock', withCode('deadlock detected', '40P01')],
    [
      'a query failure wrapping a dropped connection',
      new QueryFailedError('SELECT 1', [], new Error('Connection terminated unexpectedly')),
    ],
    [
      'every address of a host refusing',
      new AggregateError([
        withCode('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED'),
        withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
      ]),
    ],
    ['Redis gone', new Error('Connection is closed.')],
  ])('holds work on %s', (_name, error) => expect(isInfrastructureError(error)).toBe(true));

  it.each([
    ['a unique violation', withCode('duplicate key value violates unique constraint', '23505')],
    ['invalid input', withCode('invalid input syntax for type uuid', '22P02')],
    ['a bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['nothing', undefined],
  ])('does not hold work on %s', (_name, error) => expect(isInfrastructureError(error)).toBe(false));
});
