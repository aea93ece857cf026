import 'reflect-metadata';
import { getMetadataStorage } from 'class-validator';
// Loading the application module loads every DTO with it.
import '../../app.module';

type Storage = Record<'_transformMetadatas' | '_exposeMetadatas' | '_excludeMetadatas', Map<unknown, unknown>>;
// class-transformer keeps its decorators' metadata in a module it does not export or type.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as { defaultMetadataStorage: Storage };

/**
 * ValidBodyPipe hands the handler the validated body as plain data, not the DTO instance: sound
 * only while no DTO class has behaviour that an instance would carry and plain data would not.
 */
describe('every validated class is data only', () => {
  const classes = [...(getMetadataStorage() as unknown as { validationMetadatas: Map<unknown, unknown> }).validationMetadatas.keys()].filter(
    (target): target is new () => object => typeof target === 'function',
  );

  it('finds the request DTOs', () => {
    expect(classes.map((c) => c.name)).toEqual(expect.arrayContaining(['CreateEnrollmentDto', 'UpdateUserRequestDto', 'AddressDto', 'PhoneDto']));
  });

  it.each(classes.map((c) => [c.name, c] as const))('%s: no method or accessor, no initialised field, no @Transform, @Expose or @Exclude', (_name, dto) => {
    for (let proto = dto.prototype as object; proto !== Object.prototype; proto = Object.getPrototypeOf(proto) as object) {
      expect(Object.getOwnPropertyNames(proto)).toEqual(['constructor']);
    }
    expect(Object.values(new dto()).filter((value) => value !== undefined)).toEqual([]);
    const storage = defaultMetadataStorage;
    expect([storage._transformMetadatas.has(dto), storage._exposeMetadatas.has(dto), storage._excludeMetadatas.has(dto)]).toEqual([false, false, false]);
  });
});
