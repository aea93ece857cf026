import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { from, mergeMap, Observable } from 'rxjs';
import { JweService } from '../../infrastructure/crypto/jwe.service';
import { Principal } from '../context/request-context';
import { DomainError } from '../errors/domain-error';

/**
 * A partner configured for encryption may send `encryptedUserData` as a JWE compact string;
 * it is decrypted here, before locks, idempotency and validation see the body. Anyone else
 * sending a string gets the ordinary validation error for a non-object.
 */
@Injectable()
export class JweBodyInterceptor implements NestInterceptor {
  constructor(private readonly jwe: JweService) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<FastifyRequest & { user?: Principal }>();
    const body = request.body as { encryptedUserData?: unknown } | undefined;
    const sealed = body && typeof body === 'object' ? body.encryptedUserData : undefined;
    if (typeof sealed !== 'string' || !request.user?.partner.encryption) return next.handle();
    return from(this.open(sealed)).pipe(
      mergeMap((plain) => {
        (body as { encryptedUserData?: unknown }).encryptedUserData = plain;
        return next.handle();
      }),
    );
  }

  private async open(sealed: string): Promise<unknown> {
    try {
      const plain = await this.jwe.decryptFromPartner(sealed);
      if (!plain || typeof plain !== 'object' || Array.isArray(plain)) throw new Error('not an object');
      return plain;
    } catch {
      throw new DomainError('INVALID_FIELD', { field: 'encryptedUserData', property: 'encryptedUserData' });
    }
  }
}
