import type { JournalWriter } from '../persistence/journal-writer.service.js';
import type { JournalAppend, JournalDraft } from '../persistence/journal-draft.interface.js';
import { inSpan } from './library-tracer.js';
import { SPAN_ATTRIBUTES, SPAN_NAMES } from './trace-names.js';

/**
 * `journal.append(draft)` in a `pn.journal.append` span: the caller's wait for the batch that
 * commits its record, with the record's ids, its sequence (on a collision the original's) and
 * whether this call wrote it.
 */
export function tracedAppend(journal: JournalWriter, draft: JournalDraft): Promise<JournalAppend> {
  const ids = {
    [SPAN_ATTRIBUTES.sessionId]: draft.sessionId,
    ...(draft.loopId === null ? {} : { [SPAN_ATTRIBUTES.loopId]: draft.loopId }),
    [draft.kind === 'process_notification' ? SPAN_ATTRIBUTES.commandId : SPAN_ATTRIBUTES.eventId]: draft.idempotencyId,
  };
  return inSpan(SPAN_NAMES.journalAppend, ids, async (span) => {
    const append = await journal.append(draft);
    span.setAttributes({ [SPAN_ATTRIBUTES.sequence]: append.record.sequence, [SPAN_ATTRIBUTES.appended]: append.appended });
    return append;
  });
}
