import { DataSource } from 'typeorm';
import type { StoreOwnership } from '../dialects/store-dialect.js';
import { storeDialectOf } from '../dialects/store-dialects.js';

/**
 * A data source that owns its database while it is initialized, where one process must own it (a
 * SQLite file, see `SqliteFileLock`): `initialize` takes the ownership before it opens anything,
 * and throws `SqliteFileInUseError` when another process holds it; `destroy` gives it back. Every
 * data source of the library that writes (the module's, the start-up probe's, `migrate`'s) is
 * one, so a second server, or a migration while a server runs, is refused before it writes.
 */
export class OwnedDataSource extends DataSource {
  private ownership?: StoreOwnership;

  override async initialize(): Promise<this> {
    this.ownership = storeDialectOf(this).own(this.options);
    try {
      return await super.initialize();
    } catch (error) {
      this.giveUp();
      throw error;
    }
  }

  override async destroy(): Promise<void> {
    try {
      await super.destroy();
    } finally {
      this.giveUp();
    }
  }

  private giveUp(): void {
    const ownership = this.ownership;
    this.ownership = undefined;
    ownership?.release();
  }
}
