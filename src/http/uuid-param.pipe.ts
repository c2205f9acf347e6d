import { Injectable, type PipeTransform } from '@nestjs/common';
import { ValidationError } from '#process-notifications';
import { isUUID } from 'class-validator';

/**
 * A UUID path parameter: canonical 8-4-4-4-12 hex of any version, not nil, any case; passed
 * on lower-cased. Anything else is 400 `invalid_field` naming the parameter's field.
 */
@Injectable()
export class UuidParamPipe implements PipeTransform<string, string> {
  /** @param field the snake_case field the parameter stands for, e.g. `session_id` */
  constructor(private readonly field: string) {}

  transform(value: string): string {
    if (!isUUID(value, 'loose') || isUUID(value, 'nil')) {
      throw new ValidationError(this.field, `${this.field} must be a canonical, non-nil UUID`);
    }
    return value.toLowerCase();
  }
}
