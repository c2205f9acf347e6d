import { Injectable, type PipeTransform } from '@nestjs/common';
import { validateInput, type InputSchema } from 'nestjs-process-notifications';
import type { ClassConstructor } from 'class-transformer';

/**
 * Checks an optional request body against a closed-schema DTO with the library's own
 * `validateInput`: no body is `{}`; an unknown key fails under its own name; then the first
 * failing field is named (400 `invalid_field`).
 */
@Injectable()
export class ClosedSchemaPipe<T extends object> implements PipeTransform<unknown, T> {
  constructor(private readonly dto: ClassConstructor<T> & { readonly schema: InputSchema }) {}

  transform(body: unknown): T {
    return validateInput(this.dto, this.dto.schema, body === undefined ? {} : body);
  }
}
