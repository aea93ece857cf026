import { GROUP, groupOf, sourceFileOf } from './path-groups';

describe('path-groups: the src/ files a first enrollment runs, grouped', () => {
  it('names the source file of a compiled src/ script, and nothing outside src/', () => {
    expect(sourceFileOf('file:///repo/dist/src/modules/locking/call-runner.js')).toBe('modules/locking/call-runner.ts');
    expect(sourceFileOf('file:///repo/dist/bench/cpu.js')).toBeUndefined();
    expect(sourceFileOf('file:///repo/node_modules/fastify/fastify.js')).toBeUndefined();
    expect(sourceFileOf('node:internal/crypto/util')).toBeUndefined();
  });

  it('puts DTOs and entities apart, then the edge, and the rest in the call', () => {
    expect(groupOf('modules/user/dtos/phone.dto.ts')).toBe(GROUP.shapes);
    expect(groupOf('modules/accounts/entities/account.entity.ts')).toBe(GROUP.shapes);
    expect(groupOf('modules/auth/oauth-responses.dto.ts')).toBe(GROUP.shapes);
    expect(groupOf('common/http/json-body.ts')).toBe(GROUP.edge);
    expect(groupOf('modules/auth/bearer-auth.guard.ts')).toBe(GROUP.edge);
    expect(groupOf('infrastructure/logging/logging.ts')).toBe(GROUP.edge);
    expect(groupOf('modules/enrollment/controllers/enrollment.controller.ts')).toBe(GROUP.call);
    expect(groupOf('infrastructure/database/call-connection.ts')).toBe(GROUP.call);
    expect(groupOf('common/validation/valid-body.ts')).toBe(GROUP.call);
  });
});
