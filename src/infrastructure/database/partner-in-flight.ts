import { Injectable } from '@nestjs/common';
import { DomainError } from '../../common/errors/domain-error';
import { AppConfig } from '../../config/app-config';
import { Metrics } from '../metrics/metrics';

/**
 * Locked calls in flight per partner on this instance (CONTRACT section 12: PARTNER_MAX_IN_FLIGHT),
 * so one partner cannot hold every pooled connection. A call is admitted before its first database
 * read (for an idempotent route, the replay interceptor's stored-answer read when the cap has room;
 * otherwise the call runner's connection, after the field rules) and leaves when it ends. Per instance and in memory, on purpose: the cap
 * protects this instance's pool, and nothing about it needs to outlive a call.
 */
@Injectable()
export class PartnerInFlight {
  private readonly counts = new Map<string, number>();

  constructor(
    private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {}

  /** Admits a call of `partnerId`, or refuses it (503/503/3 with Retry-After, counted). Returns the call's leave, to call once when it ends. */
  enter(partnerId: string): () => void {
    const leave = this.tryEnter(partnerId);
    if (leave) return leave;
    this.metrics.countInFlightRejection();
    throw new DomainError('PARTNER_IN_FLIGHT_LIMIT', { headers: { 'retry-after': '1' } });
  }

  /** Admits a call of `partnerId` when the cap allows (its leave), or null: nothing refused, nothing counted. */
  tryEnter(partnerId: string): (() => void) | null {
    const count = this.counts.get(partnerId) ?? 0;
    if (count >= this.config.env.partnerMaxInFlight) return null;
    this.counts.set(partnerId, count + 1);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const rest = (this.counts.get(partnerId) ?? 1) - 1;
      if (rest <= 0) this.counts.delete(partnerId);
      else this.counts.set(partnerId, rest);
    };
  }
}
