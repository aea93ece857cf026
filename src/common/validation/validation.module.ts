import { Global, Module } from '@nestjs/common';
import { ValidationMemo } from './validation-memo';

/** Global: the one validation memo of the process, shared by every body pipe and the enrollment's early replay. */
@Global()
@Module({
  providers: [ValidationMemo],
  exports: [ValidationMemo],
})
export class ValidationModule {}
