import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { ProcessNotificationsModuleOptions } from './process-notifications-options.interface.js';

export const {
  ConfigurableModuleClass,
  MODULE_OPTIONS_TOKEN: PROCESS_NOTIFICATIONS_OPTIONS,
  OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<ProcessNotificationsModuleOptions>().setClassMethodName('forRoot').build();

export const DEFAULT_LOOP_CAPACITY = 64;

/** Most loops one session may open, so one token cannot grow the process without bound. */
export const DEFAULT_MAX_LOOPS_PER_SESSION = 1000;

/** Days a consumed notification's or lifecycle record's payload is kept. */
export const DEFAULT_RETENTION_DAYS = 30;

/** How long a node's ownership of its sessions lasts without a heartbeat (PostgreSQL only). */
export const DEFAULT_LEASE_TTL_MS = 10_000;

/** Sessions of other nodes (and their token hashes) kept in memory after a read (PostgreSQL only). */
export const DEFAULT_SESSION_CACHE_SIZE = 10_000;
