import { Injectable } from '@nestjs/common';

/** The time source of enrollment rules (terms window, cycle day, expiry), injectable so tests can pin it. */
@Injectable()
export class Clock {
  now(): Date {
    return new Date();
  }
}
