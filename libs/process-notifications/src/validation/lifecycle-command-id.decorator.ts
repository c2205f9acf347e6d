import { applyDecorators } from '@nestjs/common';
import { ValidateBy } from 'class-validator';
import { OUTCOME_KINDS } from '../vocabulary/process-vocabulary.js';
import { CanonicalUuid } from './canonical-uuid.decorator.js';
import { normaliseId } from './normalise-id.js';

/** Only the records that end a run may name the completion notification that reports it. */
function allowsCommandId(object: { kind?: unknown }): boolean {
  return (OUTCOME_KINDS as readonly unknown[]).includes(object.kind);
}

/** The record's own id and the notification's id name different things: they must differ. */
function differsFromEventId(value: unknown, object: { event_id?: unknown }): boolean {
  return typeof value !== 'string' || typeof object.event_id !== 'string' || normaliseId(value) !== normaliseId(object.event_id);
}

/**
 * A lifecycle record's optional `command_id` (section 14): the completion notification that
 * reports the same run. A canonical, non-nil UUID stored in lower case, only on `completed` and
 * `lost` records, and never the record's own `event_id`.
 */
export function LifecycleCommandId(): PropertyDecorator {
  return applyDecorators(
    CanonicalUuid(),
    ValidateBy({
      name: 'isLifecycleCommandId',
      validator: {
        validate: (value, args) => {
          const object = args!.object as { kind?: unknown; event_id?: unknown };
          return allowsCommandId(object) && differsFromEventId(value, object);
        },
        defaultMessage: (args) =>
          allowsCommandId(args!.object as { kind?: unknown })
            ? 'command_id must differ from event_id'
            : 'command_id is only allowed on completed and lost records',
      },
    }),
  );
}
