import { Logger } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AppConfig } from '../../config/app-config';
import { ConfigModule } from '../../config/config.module';
import { ScreenedName } from './ofac-match';
import { OfacScreeningOptions } from './ofac-screening.options';
import { OfacScreeningService } from './ofac-screening.service';
import { ScreeningModule } from './screening.module';
import { Metrics } from '../../infrastructure/metrics/metrics';
import { MetricsModule } from '../../infrastructure/metrics/metrics.module';

const FIXTURE = path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'ofac');
const EMPTY_COLUMNS = ',-0- '.repeat(9);
const ADDED = `9100,"LINDQVIST-ABARCA, Pernilla",individual${EMPTY_COLUMNS}\r\n`;

const person = (firstName: string, lastName: string, middleName?: string): ScreenedName => ({ firstName, middleName, lastName });
const copies: string[] = [];

afterAll(() => {
  for (const dir of copies) fs.rmSync(dir, { recursive: true, force: true });
});

describe(OfacScreeningService.name, () => {
  let sut: OfacScreeningService;
  let warn: jest.SpyInstance;

  const start = (options: Partial<OfacScreeningOptions> = {}): OfacScreeningService => {
    sut = new OfacScreeningService({ listDir: FIXTURE, matchThreshold: 0.92, reloadIntervalMs: 60_000, ...options });
    sut.onModuleInit();
    return sut;
  };

  beforeEach(() => {
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });

  afterEach(() => {
    sut?.onModuleDestroy();
    jest.restoreAllMocks();
  });

  describe('with the fixture list', () => {
    beforeEach(() => start());

    it('is enabled', () => {
      expect(sut.isEnabled()).toBe(true);
    });

    it('matches a primary name, first and middle names as given', () => {
      expect(sut.screen(person('Bartholomew', 'Quillfeather', 'Ignatius'))).toEqual({
        entNum: 9002,
        matchedName: 'QUILLFEATHER, Bartholomew Ignatius',
        score: 1,
        kind: 'primary',
      });
    });

    it('matches an alias from alt.csv', () => {
      expect(sut.screen(person('Ignatius', 'Thornwick'))).toEqual({ entNum: 9002, matchedName: 'THORNWICK, Ignatius', score: 1, kind: 'alias' });
      expect(sut.screen(person('Ada', "O'Konkwo"))).toMatchObject({ entNum: 9008, kind: 'alias' });
    });

    it('matches an accented spelling of an ASCII list name', () => {
      expect(sut.screen(person('José', 'Núñez Valderramos'))).toMatchObject({ entNum: 9001, matchedName: 'NUNEZ VALDERRAMOS, Jose', score: 1 });
    });

    it('matches an ASCII spelling of an accented list name', () => {
      expect(sut.screen(person('Soren', 'Grunewald Osterhagen'))).toMatchObject({ entNum: 9003, score: 1 });
    });

    it('matches a one-letter variant below a perfect score', () => {
      const match = sut.screen(person('Odalys', 'Vanterpol'));

      expect(match).toMatchObject({ entNum: 9004, kind: 'primary' });
      expect(match?.score).toBeGreaterThanOrEqual(0.92);
      expect(match?.score).toBeLessThan(1);
    });

    it('matches whatever the token order', () => {
      expect(sut.screen(person('Valderramos', 'Jose Nunez'))).toMatchObject({ entNum: 9001, score: 1 });
      expect(sut.screen(person('Quillfeather', 'Bartholomew'))).toMatchObject({ entNum: 9002 });
    });

    it('matches when the enrollee has a middle name the list does not', () => {
      expect(sut.screen(person('Jose', 'Nunez Valderramos', 'Ramiro'))).toMatchObject({ entNum: 9001, score: 1 });
    });

    it.each([
      ['an entity', person('Halvorsen', 'Bristow')],
      ["an entity's alias", person('Bristow Halvorsen', 'Group')],
      ['a vessel', person('Marguerite', 'Ashcombe')],
      ["a vessel's former name", person('Lady', 'Perpetua')],
      ['an unrelated name', person('Maria', 'Gonzalez')],
      ['a listed surname with another given name', person('Jane', 'Quillfeather')],
    ])('does not match %s', (_, name) => {
      expect(sut.screen(name)).toBeNull();
    });
  });

  it('respects the threshold', () => {
    start({ matchThreshold: 0.95 });

    expect(sut.screen(person('Odalys', 'Vanterpol'))).toBeNull();
    expect(sut.screen(person('Odalys', 'Vanterpool'))).toMatchObject({ entNum: 9004 });
  });

  it('is disabled without a list folder, and matches nothing', () => {
    start({ listDir: undefined });

    expect(sut.isEnabled()).toBe(false);
    expect(sut.screen(person('Ignatius', 'Thornwick'))).toBeNull();
  });

  it('refuses to start with a list that cannot be read, without any name in the message', () => {
    const dir = listCopy();
    fs.writeFileSync(path.join(dir, 'sdn.csv'), `9001,"NUNEZ VALDERRAMOS, Jose",individual\r\n`);

    expect(() => start({ listDir: dir })).toThrow('OFAC_LIST_DIR: the SDN list cannot be loaded (sdn.csv: record 1 has 3 fields, expected 12)');
    expect(() => start({ listDir: path.join(dir, 'missing') })).toThrow(/cannot be loaded \(ENOENT\)/);
  });

  it('refuses a list without individuals', () => {
    const dir = listCopy();
    fs.writeFileSync(path.join(dir, 'sdn.csv'), '\x1a');

    expect(() => start({ listDir: dir })).toThrow(/sdn.csv: no individuals/);
  });

  describe('reloading', () => {
    it('loads changed files once they have settled for one poll', async () => {
      const dir = listCopy();
      start({ listDir: dir });
      expect(await sut.checkForChanges()).toBe(false);
      expect(sut.screen(person('Pernilla', 'Lindqvist Abarca'))).toBeNull();

      addIndividual(dir);

      expect(await sut.checkForChanges()).toBe(false);
      expect(await sut.checkForChanges()).toBe(true);
      expect(sut.screen(person('Pernilla', 'Lindqvist Abarca'))).toMatchObject({ entNum: 9100 });
      expect(sut.screen(person('Ignatius', 'Thornwick'))).toMatchObject({ entNum: 9002 });
      expect(await sut.checkForChanges()).toBe(false);
    });

    it('keeps the previous list when the new one is broken, logging one line without names', async () => {
      const dir = listCopy();
      start({ listDir: dir });
      fs.writeFileSync(path.join(dir, 'alt.csv'), '9002,501,"aka","THORNWICK, Ignatius\r\n');

      await sut.checkForChanges();
      expect(await sut.checkForChanges()).toBe(false);
      await sut.checkForChanges();

      expect(sut.isEnabled()).toBe(true);
      expect(sut.screen(person('Ignatius', 'Thornwick'))).toMatchObject({ entNum: 9002 });
      expect(warn).toHaveBeenCalledTimes(1);
      const line = String(warn.mock.calls[0][0]);
      expect(line).toMatch(/^OFAC list reload failed, the previous list stays in use: alt.csv: malformed CSV/);
      expect(line).not.toMatch(/thornwick|ignatius/i);

      fs.copyFileSync(path.join(FIXTURE, 'alt.csv'), path.join(dir, 'alt.csv'));
      addIndividual(dir);
      await sut.checkForChanges();
      expect(await sut.checkForChanges()).toBe(true);
      expect(sut.screen(person('Pernilla', 'Lindqvist Abarca'))).toMatchObject({ entNum: 9100 });
    });

    it('keeps the previous list while a file is missing', async () => {
      const dir = listCopy();
      start({ listDir: dir });
      fs.rmSync(path.join(dir, 'alt.csv'));

      await sut.checkForChanges();
      await sut.checkForChanges();

      expect(sut.screen(person('Ignatius', 'Thornwick'))).toMatchObject({ entNum: 9002 });
      expect(warn).toHaveBeenCalledWith('OFAC list reload failed, the previous list stays in use: ENOENT');
    });

    it('polls on its own timer, which module destroy stops', async () => {
      const dir = listCopy();
      start({ listDir: dir, reloadIntervalMs: 10 });
      addIndividual(dir);

      await until(() => sut.screen(person('Pernilla', 'Lindqvist Abarca')) !== null);
      sut.onModuleDestroy();
      fs.writeFileSync(path.join(dir, 'sdn.csv'), fs.readFileSync(path.join(FIXTURE, 'sdn.csv')));
      await new Promise((resolve) => setTimeout(resolve, 100));

      expect(sut.screen(person('Pernilla', 'Lindqvist Abarca'))).toMatchObject({ entNum: 9100 });
    });
  });
});

describe(ScreeningModule.name, () => {
  it('provides the service configured from OFAC_LIST_DIR and OFAC_MATCH_THRESHOLD', async () => {
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    const config = AppConfig.load({ OFAC_LIST_DIR: FIXTURE, OFAC_MATCH_THRESHOLD: '0.99' });
    // The process's registry is global in the app (MetricsModule): the list's gauges register in it.
    const metrics = new Metrics();
    const app = await Test.createTestingModule({ imports: [ConfigModule.forRoot(config), MetricsModule.forRoot(metrics), ScreeningModule] }).compile();
    await app.init();

    const sut = app.get(OfacScreeningService);

    expect(sut.isEnabled()).toBe(true);
    expect(sut.screen(person('Ignatius', 'Thornwick'))).toMatchObject({ entNum: 9002 });
    expect(sut.screen(person('Odalys', 'Vanterpol'))).toBeNull();
    expect(await metrics.registry.getSingleMetricAsString('ofac_list_entries')).toMatch(/^ofac_list_entries [1-9]\d*$/m);
    await app.close();
    jest.restoreAllMocks();
  });
});

/** Adds an individual before the list's closing Ctrl-Z, as Treasury's next edition would. */
function addIndividual(dir: string): void {
  const file = path.join(dir, 'sdn.csv');
  const body = fs.readFileSync(file, 'latin1').replace(new RegExp(`${String.fromCharCode(0x1a)}$`), '');
  fs.writeFileSync(file, Buffer.from(`${body}${ADDED}\x1a`, 'latin1'));
}

function listCopy(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ofac-list-'));
  copies.push(dir);
  for (const file of ['sdn.csv', 'alt.csv']) fs.copyFileSync(path.join(FIXTURE, file), path.join(dir, file));
  return dir;
}

async function until(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
