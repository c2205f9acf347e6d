import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';

/** A request header by (lower-case) name; unlike `@Headers()`, it runs the pipes it is given. */
export const RequestHeader = createParamDecorator(
  (name: string, context: ExecutionContext) => context.switchToHttp().getRequest<IncomingMessage>().headers[name],
);
