import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Principal } from '../context/request-context';

/** The authenticated partner of this request (set by the bearer guard). */
export const CurrentPrincipal = createParamDecorator((_data: unknown, context: ExecutionContext): Principal => {
  return context.switchToHttp().getRequest<{ user: Principal }>().user;
});
