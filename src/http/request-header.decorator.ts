import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';

/**
 * A request header by name, in any case (Node lower-cases the names of a request's headers, so
 * the name is too); unlike `@Headers()`, it runs the pipes it is given.
 */
export const RequestHeader = createParamDecorator(
  (name: string, context: ExecutionContext) => context.switchToHttp().getRequest<IncomingMessage>().headers[name.toLowerCase()],
);
