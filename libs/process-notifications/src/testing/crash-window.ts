// Test-only: lets the crash test SIGKILL the process between the journal commit and the
// dispatch. Inert unless PN_TEST_CRASH_WINDOW=1 is set when the module is loaded.
const ENABLED = process.env.PN_TEST_CRASH_WINDOW === '1';

/** Resolves at once, unless the crash-window flag is set: then announces and never resolves. */
export function crashWindow(commandId: string): Promise<void> | undefined {
  if (!ENABLED) return undefined;
  process.stdout.write(`crash-window ${commandId}\n`);
  return new Promise<void>(() => undefined);
}
