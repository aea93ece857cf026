import { Global, Module } from '@nestjs/common';
import { ClsService, ClsServiceManager } from 'nestjs-cls';
import { SandboxFaults } from './sandbox-faults';

/**
 * Global: what every request carries beside its body (requestId, principal, the sandbox test
 * controls), read by any module through nestjs-cls's ClsService. The store is entered by a Fastify
 * onRequest hook (installRequestContext), not by ClsModule: its middleware runs through middie and
 * its root module mounts a no-op guard and interceptor on every route, which cost more CPU per
 * request than the whole token endpoint's own work.
 */
@Global()
@Module({
  providers: [{ provide: ClsService, useValue: ClsServiceManager.getClsService() }, SandboxFaults],
  exports: [ClsService, SandboxFaults],
})
export class RequestContextModule {}
