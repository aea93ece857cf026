import { Global, Module } from '@nestjs/common';
import { SandboxFaults } from './sandbox-faults';

/** Global: what every request carries beside its body (the sandbox test controls), read by any module. */
@Global()
@Module({ providers: [SandboxFaults], exports: [SandboxFaults] })
export class RequestContextModule {}
