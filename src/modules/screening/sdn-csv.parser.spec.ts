import * as fs from 'node:fs';
import * as path from 'node:path';
import { OfacListError, parseAltCsv, parseSdnCsv } from './sdn-csv.parser';

const FIXTURE = path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'ofac');
const EMPTY_COLUMNS = ',-0- '.repeat(9);

describe(parseSdnCsv.name, () => {
  it('reads the fixture: CRLF lines, quoted "LAST, First" names, -0- empties, the trailing Ctrl-Z', () => {
    const bytes = fs.readFileSync(path.join(FIXTURE, 'sdn.csv'));
    expect(bytes.includes('\r\n')).toBe(true);
    expect(bytes[bytes.length - 1]).toBe(0x1a);

    const sut = parseSdnCsv(bytes);

    expect(sut).toHaveLength(8);
    expect(sut[0]).toEqual({ entNum: 9001, name: 'NUNEZ VALDERRAMOS, Jose', type: 'individual' });
    expect(sut.find((row) => row.entNum === 9005)).toEqual({ entNum: 9005, name: 'HALVORSEN BRISTOW', type: null });
    expect(sut.find((row) => row.entNum === 9003)?.name).toBe('GRÜNEWALD-OSTERHAGEN, Søren');
    expect(sut.map((row) => row.type)).toEqual(['individual', 'individual', 'individual', 'individual', null, 'vessel', 'aircraft', 'individual']);
  });

  it('keeps a quoted comma inside the name and reads -0- with any trailing spaces as empty', () => {
    const sut = parseSdnCsv(
      `1,"DOE, John Q",individual,"SDGT",-0-  ,-0-,-0- ,-0- ,-0- ,-0- ,-0- ,"a, b"\r\n2,"ACME, S.A.",-0-,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0-   \r\n\x1a`,
    );

    expect(sut).toEqual([
      { entNum: 1, name: 'DOE, John Q', type: 'individual' },
      { entNum: 2, name: 'ACME, S.A.', type: null },
    ]);
  });

  it('reads LF-only files and files without the Ctrl-Z alike', () => {
    const line = `7,"ROE, Jane",individual${EMPTY_COLUMNS}`;

    expect(parseSdnCsv(`${line}\n`)).toEqual(parseSdnCsv(`${line}\r\n\x1a`));
    expect(parseSdnCsv(line)).toEqual([{ entNum: 7, name: 'ROE, Jane', type: 'individual' }]);
  });

  it('reads a file that is not UTF-8 as Latin-1', () => {
    const sut = parseSdnCsv(Buffer.from(`8,"PE\xd1A, Ana",individual${EMPTY_COLUMNS}\r\n\x1a`, 'latin1'));

    expect(sut[0].name).toBe('PEÑA, Ana');
  });

  it.each([
    ['a record with too few fields', `1,"DOE, John",individual\r\n`, /record 1 has 3 fields, expected 12/],
    ['an entry number that is not one', `x,"DOE, John",individual${EMPTY_COLUMNS}\r\n`, /record 1 has no valid entry number/],
    ['an empty name', `1,-0- ,individual${EMPTY_COLUMNS}\r\n`, /record 1 has no SDN_Name/],
    ['an unterminated quote', `1,"DOE, John,individual${EMPTY_COLUMNS}\r\n`, /malformed CSV/],
    [
      'records after the Ctrl-Z',
      `1,"DOE, John",individual${EMPTY_COLUMNS}\r\n\x1a2,"DOE, John",individual${EMPTY_COLUMNS}\r\n`,
      /record 2 has no valid entry number/,
    ],
  ])('refuses %s, naming the record but none of its content', (_, content, message) => {
    const attempt = (): unknown => parseSdnCsv(content);

    expect(attempt).toThrow(OfacListError);
    expect(attempt).toThrow(message);
    expect(attempt).not.toThrow(/DOE|John/);
  });
});

describe(parseAltCsv.name, () => {
  it('reads the fixture aliases with their entry numbers', () => {
    const sut = parseAltCsv(fs.readFileSync(path.join(FIXTURE, 'alt.csv')));

    expect(sut).toHaveLength(6);
    expect(sut[0]).toEqual({ entNum: 9002, altNum: 501, altType: 'aka', altName: 'QUILLFEATHER, Bart' });
    expect(sut[5]).toEqual({ entNum: 9008, altNum: 506, altType: 'aka', altName: "O'KONKWO, Ada" });
  });

  it('refuses a record of the wrong width', () => {
    expect(() => parseAltCsv('1,2,"aka"\r\n')).toThrow(/alt.csv: record 1 has 3 fields, expected 5/);
  });
});
