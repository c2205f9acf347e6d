import type { InputSchema } from 'nestjs-process-notifications';

/** Body of the action routes (stop, consume): none, or an empty JSON object. */
export class EmptyRequestDto {
  static readonly schema: InputSchema = { properties: [] };
}
