import * as path from 'node:path';
import { EnvError, loadEnv } from './env';

describe(loadEnv.name, () => {
  describe('OFAC screening', () => {
    it('is off by default, with the 0.92 threshold', () => {
      const sut = loadEnv({});

      expect(sut.ofac).toEqual({ listDir: undefined, matchThreshold: 0.92 });
    });

    it('reads the list folder as an absolute path and the threshold', () => {
      const sut = loadEnv({ OFAC_LIST_DIR: 'lists/ofac', OFAC_MATCH_THRESHOLD: '0.9' });

      expect(sut.ofac).toEqual({ listDir: path.resolve('lists/ofac'), matchThreshold: 0.9 });
      expect(loadEnv({ OFAC_MATCH_THRESHOLD: '1' }).ofac.matchThreshold).toBe(1);
    });

    it.each(['0', '-0.5', '1.01', 'high', 'NaN', 'Infinity'])('refuses OFAC_MATCH_THRESHOLD=%s', (value) => {
      expect(() => loadEnv({ OFAC_MATCH_THRESHOLD: value })).toThrow(EnvError);
      expect(() => loadEnv({ OFAC_MATCH_THRESHOLD: value })).toThrow('OFAC_MATCH_THRESHOLD must be a number in (0, 1]');
    });
  });
});
