import { withoutPassword } from '../../../../scripts/store-address';

describe("npm start's banner address of a store", () => {
  it('leaves out the password of the user part', () => {
    expect(withoutPassword('postgres://app:s3cret@db.example:5432/platform')).toBe(
      'postgres://app@db.example:5432/platform',
    );
  });

  it('masks a password, key or token given as a query parameter, as PostgreSQL and Redis URLs allow', () => {
    const shown = withoutPassword(
      'postgres://db.example/platform?sslmode=require&password=s3cret&sslkey=/k&authToken=t0k',
    );
    expect(shown).not.toMatch(/s3cret|t0k|\/k\b/);
    expect(shown).toBe('postgres://db.example/platform?sslmode=require&password=***&sslkey=***&authToken=***');
  });

  it('says so when the address is not a URL, without echoing it', () => {
    expect(withoutPassword('not a url with s3cret')).toBe('(an address that is not a URL)');
  });
});
