import { Injectable } from '@nestjs/common';

/** The time source of every rule (terms window, cycle day, card expiry, closing), injectable so tests can pin it. */
@Injectable()
export class Clock {
  now(): Date {
    return new Date();
  }
}
