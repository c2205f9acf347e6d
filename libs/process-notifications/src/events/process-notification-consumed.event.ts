/** A loop consumed a pending notification; the consumed record is journaled at `sequence`. */
export class ProcessNotificationConsumedEvent {
  constructor(
    readonly sessionId: string,
    readonly loopId: string,
    readonly commandId: string,
    readonly sequence: number,
  ) {}
}
