/**
 * What consuming one command id of a loop came to, in the transaction that journaled it:
 * `consumed: true` when this transaction wrote its consumed record, `false` when one was already
 * journaled (`sequence` is that record's either way); `notFound` when no notification of this
 * command id was journaled for the loop.
 */
export type JournalConsumption =
  | { readonly commandId: string; readonly consumed: boolean; readonly sequence: number }
  | { readonly commandId: string; readonly notFound: true };
