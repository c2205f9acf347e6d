import { Injectable, type PipeTransform } from '@nestjs/common';
import { ValidationError } from 'nestjs-process-notifications';

/**
 * A decimal integer from a query parameter or header, within bounds; absent is the default.
 * Anything else is 400 `invalid_field` naming the field.
 */
@Injectable()
export class IntegerPipe implements PipeTransform<unknown, number> {
  constructor(
    private readonly field: string,
    private readonly options: { readonly default: number; readonly min: number; readonly max: number },
  ) {}

  transform(value: unknown): number {
    if (value === undefined) return this.options.default;
    const { min, max } = this.options;
    const number = typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : NaN;
    if (!(number >= min && number <= max)) {
      throw new ValidationError(this.field, `${this.field} must be an integer from ${min} to ${max}`);
    }
    return number;
  }
}
