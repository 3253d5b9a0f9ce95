import { AxiosError, AxiosHeaders } from 'axios';
import { QueryFailedError } from 'typeorm';
import { loggedError } from './logged-error';

describe(loggedError.name, () => {
  it('keeps what failed and where, never the values a statement carried', () => {
    const driverError = Object.assign(new Error('relation "approval.approvals" does not exist'), {
      code: '42P01',
      detail: 'Key (token)=(statement-secret) already exists.',
    });
    const sut = loggedError(
      new QueryFailedError(
        'INSERT INTO t (a) VALUES ($1)',
        ['https://hooks.example.com/T0/statement-secret'],
        driverError,
      ),
    );
    expect(sut).toMatchObject({
      type: 'QueryFailedError',
      message: 'relation "approval.approvals" does not exist',
      code: '42P01',
      query: 'INSERT INTO t (a) VALUES ($1)',
      stack: expect.stringContaining('QueryFailedError'),
    });
    expect(JSON.stringify(sut)).not.toContain('statement-secret');
  });

  it('keeps no value a data exception quotes in its message (invalid input syntax for a uuid, a number, a time)', () => {
    const driverError = Object.assign(new Error('invalid input syntax for type uuid: "message-secret"'), {
      code: '22P02',
    });
    const sut = loggedError(new QueryFailedError('SELECT 1 WHERE id = $1', ['message-secret'], driverError));
    expect(sut).toMatchObject({ code: '22P02', message: 'invalid input syntax for type uuid: "…"' });
    expect(JSON.stringify(sut)).not.toContain('message-secret');
  });

  it("keeps nothing of an HTTP client error's request: its headers, body and URL query", () => {
    const config = {
      url: 'https://idp.example.com/token?key=query-secret',
      headers: new AxiosHeaders({ Authorization: 'Bearer header-secret', 'X-API-Key': 'header-secret' }),
      data: 'client_secret=body-secret',
    };
    const error = new AxiosError('Request failed with status code 500', 'ERR_BAD_RESPONSE', config as never, {
      _header: 'POST /token HTTP/1.1\r\nAuthorization: Bearer header-secret',
    });
    const sut = loggedError(error);
    expect(sut).toMatchObject({
      type: 'AxiosError',
      message: 'Request failed with status code 500',
      code: 'ERR_BAD_RESPONSE',
    });
    expect(JSON.stringify(sut)).not.toMatch(/secret/);
  });

  it('follows a cause, and takes what is not an error as a short text', () => {
    const sut = loggedError(
      new Error('outer', { cause: Object.assign(new Error('inner'), { config: { data: 'x-secret' } }) }),
    );
    expect(sut).toMatchObject({ message: 'outer', cause: { type: 'Error', message: 'inner' } });
    expect(JSON.stringify(sut)).not.toContain('x-secret');
    expect(loggedError('x'.repeat(2000))).toEqual({ type: 'string', message: 'x'.repeat(500) });
  });
});
