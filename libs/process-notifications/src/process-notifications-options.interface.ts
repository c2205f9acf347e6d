/** Options of {@link ProcessNotificationsModule}. */
export interface ProcessNotificationsModuleOptions {
  /**
   * Where the journal lives: `sqlite:<path>`, `sqlite::memory:` or `postgres://...`.
   * Only a file or server database survives a restart.
   * @default 'sqlite:./data/process-notifications.db'
   */
  databaseUrl?: string;
  /**
   * Capacity of each loop's pending set; a full set answers `stopped` (`inbox_full`).
   * @default 64
   */
  loopCapacity?: number;
}
