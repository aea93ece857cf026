import { databaseAddress } from './startup-summary';

describe(databaseAddress.name, () => {
  it('names host, port and database, never the user, the password or the query', () => {
    expect(databaseAddress('postgres://svc:s3cr3t@db.internal:6432/enrollment?sslmode=require&password=other')).toBe('db.internal:6432/enrollment');
  });

  it('defaults the port, and reads a socket directory given as ?host= when the URL names no host', () => {
    expect(databaseAddress('postgresql://svc:s3cr3t@db.internal/enrollment')).toBe('db.internal:5432/enrollment');
    expect(databaseAddress('postgresql:///enrollment?host=/var/run/postgresql')).toBe('/var/run/postgresql:5432/enrollment');
  });

  it('says so, without echoing it, when the URL cannot be parsed or is missing', () => {
    expect(databaseAddress('not a url with s3cr3t')).toBe('unparsable DATABASE_URL');
    expect(databaseAddress(undefined)).toBe('none');
  });
});
