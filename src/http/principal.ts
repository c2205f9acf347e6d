import { createParamDecorator, SetMetadata, type ExecutionContext } from '@nestjs/common';

/** Who a request's bearer token is: the admin, or one session. */
export type Principal = { readonly kind: 'admin'; readonly sessionId: null } | { readonly kind: 'session'; readonly sessionId: string };

export const ANY_TOKEN_ROUTE = 'pn:any-token-route';

/** Any valid token opens the route, whatever session it is of (`GET /v1/whoami`). */
export const AnyToken = (): MethodDecorator & ClassDecorator => SetMetadata(ANY_TOKEN_ROUTE, true);

// Set by the guard on the request object it checked; read by the parameter decorator below.
const principals = new WeakMap<object, Principal>();

/** Records who the request's token is (the bearer guard, once it has checked the token). */
export function setPrincipal(request: object, principal: Principal): void {
  principals.set(request, principal);
}

/** The principal the guard found for this request (routes behind a token only). */
export const RequestPrincipal = createParamDecorator((_data: unknown, context: ExecutionContext): Principal => {
  const principal = principals.get(context.switchToHttp().getRequest<object>());
  if (!principal) throw new Error('no principal: the route is not behind the bearer guard');
  return principal;
});
