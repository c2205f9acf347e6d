import { Module } from '@nestjs/common';

/**
 * Holds the resolved module options so that both the library and its TypeORM connection can
 * inject them (the options factory runs once). Internal.
 */
@Module({})
export class ProcessNotificationsOptionsModule {}
