import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config';

export interface UnblockRequest {
  paymentIdentifiers: string[];
  /** 1-based attempt of this unblock run. */
  attempt: number;
  /** Sandbox only: the first N attempts of the run fail. */
  sandboxFailures: number;
}

/** The card processor that actually (un)blocks cards; an outside system, called outside transactions. */
export abstract class CardProcessor {
  abstract unblock(request: UnblockRequest): Promise<boolean>;
}

/** Sandbox processor: succeeds, except for the failures a test asked for (never in production). */
@Injectable()
export class SandboxCardProcessor extends CardProcessor {
  constructor(private readonly config: AppConfig) {
    super();
  }

  async unblock(request: UnblockRequest): Promise<boolean> {
    return !(this.config.isSandbox && request.attempt <= request.sandboxFailures);
  }
}
