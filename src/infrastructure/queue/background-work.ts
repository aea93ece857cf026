import { Injectable } from '@nestjs/common';

/**
 * The gate of an instance's background work (job workers, the webhook poller): it begins only once
 * the instance serves, when the entry point's `serve` has its listener up. An instance that cannot
 * start (a port in use, a bad address) exits having claimed no job and posted no webhook, rather than
 * leaving what it claimed to expire and go out again after its lease.
 */
@Injectable()
export class BackgroundWork {
  private readonly waiting: Array<() => void> = [];
  private begun = false;

  /** Runs `start` once the instance serves (at once if it already does). */
  whenServing(start: () => void): void {
    if (this.begun) start();
    else this.waiting.push(start);
  }

  /** The instance serves: the work held back until now starts. Called once, by `serve`. */
  begin(): void {
    this.begun = true;
    for (const start of this.waiting.splice(0)) start();
  }
}
