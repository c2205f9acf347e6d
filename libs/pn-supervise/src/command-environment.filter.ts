/**
 * The variables the supervisor keeps from its command: every `PN_*` one. They hold its
 * credentials (`PN_TOKEN`, or an admin token in it or in `PN_ADMIN_TOKEN`) and its settings;
 * a command that saw the token could rotate or close the session, or consume its loop's
 * notifications. Defined once: the parser, the runner and the watchdog use this.
 */
const WITHHELD_PREFIX = 'PN_';

/** A variable name `--pass-env` accepts: a withheld one (every other variable is passed anyway). */
const PASSABLE = new RegExp(`^${WITHHELD_PREFIX}[A-Za-z0-9_]+$`);

/**
 * The environment a supervised command (and the supervisor's watchdog) starts with: the
 * supervisor's own without any `PN_*` variable, except those the user named with `--pass-env`.
 */
export class CommandEnvironmentFilter {
  /** Whether `name` is a variable `--pass-env` can name. */
  static passable(name: string): boolean {
    return PASSABLE.test(name);
  }

  /** `env` without the withheld variables, except those in `passed` (as they are in `env`). */
  static filter(env: NodeJS.ProcessEnv, passed: readonly string[] = []): Record<string, string> {
    const kept: Record<string, string> = {};
    for (const [name, value] of Object.entries(env)) {
      if (value === undefined) continue;
      if (name.startsWith(WITHHELD_PREFIX) && !passed.includes(name)) continue;
      kept[name] = value;
    }
    return kept;
  }
}
