import { Global, Module } from '@nestjs/common';
import { Clock } from './clock';

/** Global: the one time source every rule reads (tests pin it). */
@Global()
@Module({ providers: [Clock], exports: [Clock] })
export class TimeModule {}
