import * as fs from 'node:fs';
import * as path from 'node:path';
import 'reflect-metadata';

const SRC = path.resolve(__dirname, '../..');
const sources = fs
  .readdirSync(SRC, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts') && !file.endsWith('.spec.ts'))
  .map((file) => path.join(SRC, file));

/** Every class a `*.dto.ts` file exports: the request and answer shapes the pipes validate. */
const classes = sources
  .filter((file) => file.endsWith('.dto.ts'))
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  .flatMap((file) => Object.values(require(file) as Record<string, unknown>))
  .filter((value): value is new () => object => typeof value === 'function' && Function.prototype.toString.call(value).startsWith('class '));

/**
 * ValidBodyPipe hands the handler the validated body as plain data, not the DTO instance: sound
 * only while no DTO class has behaviour that an instance would carry and plain data would not.
 */
describe('every validated class is data only', () => {
  it('finds the request DTOs', () => {
    expect(classes.map((c) => c.name)).toEqual(expect.arrayContaining(['CreateEnrollmentDto', 'UpdateUserRequestDto', 'AddressDto', 'PhoneDto']));
  });

  it.each(classes.map((c) => [c.name, c] as const))('%s: no method or accessor, no initialised field', (_name, dto) => {
    for (let proto = dto.prototype as object; proto !== Object.prototype; proto = Object.getPrototypeOf(proto) as object) {
      expect(Object.getOwnPropertyNames(proto)).toEqual(['constructor']);
    }
    expect(Object.values(new dto()).filter((value) => value !== undefined)).toEqual([]);
  });

  it("no file of src uses class-transformer's @Transform, @Expose or @Exclude (the body would not be what was validated)", () => {
    const imports = /import\s*\{([^}]*)\}\s*from\s*'class-transformer'/g;
    const used = sources.flatMap((file) =>
      [...fs.readFileSync(file, 'utf8').matchAll(imports)].flatMap((match) =>
        (match[1] ?? '')
          .split(',')
          .map((name) => name.trim().split(/\s+as\s+/)[0])
          .filter((name) => name === 'Transform' || name === 'Expose' || name === 'Exclude')
          .map((name) => `${path.relative(SRC, file)}: ${name}`),
      ),
    );
    expect(used).toEqual([]);
  });
});
