import { mediaType } from './media-type';

describe('mediaType', () => {
  it('reads the media type in lower case, without its parameters', () => {
    expect(mediaType('Application/JSON ; charset=UTF-8')).toEqual({ type: 'application/json', utf8: true });
    expect(mediaType('application/x-www-form-urlencoded')).toEqual({ type: 'application/x-www-form-urlencoded', utf8: true });
  });

  it('takes UTF-8 and US-ASCII, quoted or not, and no other charset', () => {
    for (const charset of ['utf-8', 'UTF-8', '"utf-8"', 'us-ascii']) expect(mediaType(`application/json; charset=${charset}`)?.utf8).toBe(true);
    for (const charset of ['utf-16', 'iso-8859-1', '"windows-1252"', 'utf8']) expect(mediaType(`application/json; charset=${charset}`)?.utf8).toBe(false);
  });

  it('is undefined without a Content-Type', () => {
    expect(mediaType(undefined)).toBeUndefined();
    expect(mediaType('')).toBeUndefined();
  });
});
