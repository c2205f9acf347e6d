import { createParamDecorator, type ExecutionContext, type PipeTransform, type Type } from '@nestjs/common';
import { ReadJsonBodyPipe } from './read-json-body.pipe.js';

const rawRequest = createParamDecorator((_data: unknown, context: ExecutionContext) => context.switchToHttp().getRequest());

/**
 * The request body, read and parsed strictly by {@link ReadJsonBodyPipe}, then through `pipes`.
 * @param pipes e.g. a {@link ClosedSchemaPipe} for a DTO
 */
export const JsonBody = (...pipes: (Type<PipeTransform> | PipeTransform)[]): ParameterDecorator => rawRequest(ReadJsonBodyPipe, ...pipes);
