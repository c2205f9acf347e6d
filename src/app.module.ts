import { Module } from '@nestjs/common';
import { DEFAULT_DATABASE_URL, DEFAULT_LOOP_CAPACITY, ProcessNotificationsModule } from '#process-notifications';

/** The server: the process-notifications module on the database named by PN_DATABASE_URL. */
@Module({
  imports: [
    ProcessNotificationsModule.forRootAsync({
      useFactory: () => ({
        databaseUrl: process.env.PN_DATABASE_URL || DEFAULT_DATABASE_URL,
        loopCapacity: process.env.PN_LOOP_CAPACITY ? Number(process.env.PN_LOOP_CAPACITY) : DEFAULT_LOOP_CAPACITY,
      }),
    }),
  ],
})
export class AppModule {}
