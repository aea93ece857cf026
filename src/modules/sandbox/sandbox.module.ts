import { LockingModule } from '../locking/locking.module';
import { Module } from '@nestjs/common';
import { SandboxResetRepository } from './sandbox-reset.repository';
import { SandboxResetService } from './sandbox-reset.service';
import { SandboxController } from './sandbox.controller';

/** Sandbox-only routes; AppModule imports this module only when APP_MODE is sandbox, so production has no such route. */
@Module({
  imports: [LockingModule],
  controllers: [SandboxController],
  providers: [SandboxResetService, SandboxResetRepository],
})
export class SandboxModule {}
