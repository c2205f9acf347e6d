import type { FastifyRequest } from 'fastify';
import { createParamDecorator, type ExecutionContext, type PipeTransform, type Type } from '@nestjs/common';
import { ReadJsonBodyPipe } from './read-json-body.pipe.js';

// The raw request: its body is still unread (no parser runs before the route, see server-app.ts).
const rawRequest = createParamDecorator(
  (_data: unknown, context: ExecutionContext) => context.switchToHttp().getRequest<FastifyRequest>().raw,
);

/**
 * The request body, read and parsed strictly by {@link ReadJsonBodyPipe}, then through `pipes`.
 * @param pipes e.g. a {@link ClosedSchemaPipe} for a DTO
 */
export const JsonBody = (...pipes: (Type<PipeTransform> | PipeTransform)[]): ParameterDecorator => rawRequest(ReadJsonBodyPipe, ...pipes);
