import { Injectable, type PipeTransform } from '@nestjs/common';
import { ValidationError } from 'nestjs-process-notifications';

/**
 * An optional query parameter given at most once: its string, or undefined when absent. Given
 * twice (an array) it is 400 `invalid_field` naming the field; what the string must be is the
 * library's to check.
 */
@Injectable()
export class QueryStringPipe implements PipeTransform<unknown, string | undefined> {
  constructor(private readonly field: string) {}

  transform(value: unknown): string | undefined {
    if (value === undefined || typeof value === 'string') return value;
    throw new ValidationError(this.field, `${this.field} must be given once`);
  }
}
