import { Injectable, type PipeTransform } from '@nestjs/common';
import { ValidationError } from '#process-notifications';
import { plainToInstance, type ClassConstructor } from 'class-transformer';
import { validateSync } from 'class-validator';

/**
 * Checks an optional request body against a class-validator DTO with a closed schema: no body
 * is `{}`; anything but a JSON object fails on the first field; an unknown key fails under its
 * own name; then the first failing field in `fields` order is named (400 `invalid_field`).
 */
@Injectable()
export class ClosedSchemaPipe<T extends object> implements PipeTransform<unknown, T> {
  constructor(
    private readonly dto: ClassConstructor<T> & { readonly fields: readonly string[] },
  ) {}

  transform(body: unknown): T {
    const { fields } = this.dto;
    const input = body === undefined ? {} : body;
    if (input === null || typeof input !== 'object' || Array.isArray(input)) {
      throw new ValidationError(fields[0]!, 'expected a JSON object');
    }
    const unknown = Object.keys(input).find((key) => !fields.includes(key));
    if (unknown !== undefined) throw new ValidationError(unknown, `unknown property "${unknown}"`);
    const instance = plainToInstance(this.dto, { ...input });
    const failed = validateSync(instance).sort((a, b) => fields.indexOf(a.property) - fields.indexOf(b.property))[0];
    if (failed) throw new ValidationError(failed.property, Object.values(failed.constraints ?? {})[0]);
    return instance;
  }
}
