import { Injectable, type PipeTransform } from '@nestjs/common';
import { requireCanonicalUuid } from 'nestjs-process-notifications';

/**
 * A UUID path parameter, checked by the library's own rule (canonical, not nil, any case) and
 * passed on lower-cased. Anything else is 400 `invalid_field` naming the parameter's field.
 */
@Injectable()
export class UuidParamPipe implements PipeTransform<string, string> {
  /** @param field the snake_case field the parameter stands for, e.g. `session_id` */
  constructor(private readonly field: string) {}

  transform(value: string): string {
    return requireCanonicalUuid(value, this.field);
  }
}
