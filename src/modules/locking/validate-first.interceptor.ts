import { CallHandler, ExecutionContext, Injectable, NestInterceptor, Type } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { ModuleRef, Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { from, mergeMap, Observable } from 'rxjs';
import { createValidationPipe } from '../../common/validation/validation';
import { LOCK_ON, PRE_LOCK_CHECK } from './lock-on.decorator';

/** A route's rules that span fields or need configuration, run before its locks are taken. */
export interface PreLockCheck {
  checkBeforeLocks(programCode: string | undefined, body: unknown): void;
}


/**
 * CONTRACT section 6: every shape and field rule is evaluated before anything is looked up or
 * locked. Nest runs pipes after interceptors, so for routes declaring @LockOn this global
 * interceptor (placed before LockInterceptor) validates the body DTO with the app's own pipe and
 * runs the route's PreLockCheck; the body becomes the validated DTO, which the pipe then passes through.
 */
@Injectable()
export class ValidateFirstInterceptor implements NestInterceptor {
  private readonly pipe = createValidationPipe();

  constructor(
    private readonly reflector: Reflector,
    private readonly moduleRef: ModuleRef,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (!this.reflector.get(LOCK_ON, context.getHandler())) return next.handle();
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    return from(this.validate(context, request)).pipe(mergeMap(() => next.handle()));
  }

  private async validate(context: ExecutionContext, request: FastifyRequest): Promise<void> {
    const metatype = bodyType(context);
    if (!metatype) return;
    const dto: unknown = await this.pipe.transform(request.body, { type: 'body', metatype });
    // The validated instance replaces the body, so the pipe at its usual place passes it through.
    (request as { body: unknown }).body = dto;
    const checkType = this.reflector.get<Type<PreLockCheck> | undefined>(PRE_LOCK_CHECK, context.getHandler());
    if (checkType) {
      const params = (request.params ?? {}) as Record<string, string | undefined>;
      this.moduleRef.get(checkType, { strict: false }).checkBeforeLocks(params.programCode, dto);
    }
  }
}

/** The class of the handler's @Body() parameter, from Nest's own route metadata. */
function bodyType(context: ExecutionContext): Type<unknown> | undefined {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, context.getClass(), context.getHandler().name) ?? {}) as Record<string, { index: number; data?: unknown }>;
  const entry = Object.entries(args).find(([key, value]) => key.startsWith(`${RouteParamtypes.BODY}:`) && value.data === undefined);
  if (!entry) return undefined;
  const types = Reflect.getMetadata('design:paramtypes', context.getClass().prototype, context.getHandler().name) as Array<Type<unknown>> | undefined;
  return types?.[entry[1].index];
}
