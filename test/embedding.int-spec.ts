import { Injectable, Module } from '@nestjs/common';
import { CqrsModule, EventBus, EventsHandler, type IEventHandler, type IEventPublisher } from '@nestjs/cqrs';
import { Test } from '@nestjs/testing';
import { plainToInstance } from 'class-transformer';
import {
  ProcessCompletionNotificationDto,
  ProcessNotificationAcceptedEvent,
  ProcessNotificationsModule,
  ProcessNotificationsService,
  type ProcessNotificationsModuleOptions,
} from 'nestjs-process-notifications';
import { firstValueFrom, Subject } from 'rxjs';
import { notification } from './support/test-app.js';

// What a host application writes: its own settings provider, forRootAsync, an event handler.
@Injectable()
class HostSettings {
  readonly notifications: ProcessNotificationsModuleOptions = { databaseUrl: 'sqlite::memory:', loopCapacity: 3 };
}

@Module({ providers: [HostSettings], exports: [HostSettings] })
class HostSettingsModule {}

const accepted = new Subject<ProcessNotificationAcceptedEvent>();

@EventsHandler(ProcessNotificationAcceptedEvent)
class HostAcceptedHandler implements IEventHandler<ProcessNotificationAcceptedEvent> {
  handle(event: ProcessNotificationAcceptedEvent): void {
    accepted.next(event);
  }
}

describe('embedding the module in a host application', () => {
  it('configures through forRootAsync and reaches host event handlers', async () => {
    let factoryCalls = 0;
    const moduleRef = await Test.createTestingModule({
      imports: [
        CqrsModule.forRoot(),
        ProcessNotificationsModule.forRootAsync({
          imports: [HostSettingsModule],
          inject: [HostSettings],
          useFactory: (settings: HostSettings) => {
            factoryCalls++;
            return settings.notifications;
          },
        }),
      ],
      providers: [HostAcceptedHandler],
    }).compile();
    await moduleRef.init();
    try {
      const service = moduleRef.get(ProcessNotificationsService);
      const { sessionId } = await service.openSession();
      const loop = await service.openLoop(sessionId);
      expect(loop.capacity).toBe(3);
      // One options factory call serves both the module and its database connection.
      expect(factoryCalls).toBe(1);

      const n = notification(sessionId, loop.loopId);
      const heard = firstValueFrom(accepted);
      await service.notifyProcessCompletion(sessionId, n);
      expect((await heard).notification).toMatchObject({ commandId: n.command_id, sequence: 1 });

      // An instance of the exported DTO class is accepted like a plain object.
      const typed = plainToInstance(ProcessCompletionNotificationDto, notification(sessionId, loop.loopId));
      await expect(service.notifyProcessCompletion(sessionId, typed)).resolves.toMatchObject({ disposition: 'accepted', sequence: 2 });
    } finally {
      await moduleRef.close();
    }
  });

  it("answers deliveries when the host sends its own events to a broker: loop answers stay on the module's in-memory bus", async () => {
    const published: unknown[] = [];
    class BrokerPublisher implements IEventPublisher {
      publish(event: unknown): void {
        published.push(event);
      }
    }
    const moduleRef = await Test.createTestingModule({
      imports: [
        CqrsModule.forRoot({ eventPublisher: new BrokerPublisher() }),
        ProcessNotificationsModule.forRoot({ databaseUrl: 'sqlite::memory:' }),
      ],
    }).compile();
    await moduleRef.init();
    try {
      const service = moduleRef.get(ProcessNotificationsService);
      const { sessionId } = await service.openSession();
      const { loopId } = await service.openLoop(sessionId);
      await expect(service.notifyProcessCompletion(sessionId, notification(sessionId, loopId))).resolves.toMatchObject({
        disposition: 'accepted',
      });
    } finally {
      await moduleRef.close();
    }
  });

  it('refuses to start, saying why, when the bus the module answers through lost its in-memory publisher', async () => {
    class BrokerPublisher implements IEventPublisher {
      publish(): void {}
    }
    const moduleRef = await Test.createTestingModule({
      imports: [ProcessNotificationsModule.forRoot({ databaseUrl: 'sqlite::memory:' })],
    }).compile();
    // The only CQRS module here is the one the module imports itself.
    moduleRef.get(EventBus, { strict: false }).publisher = new BrokerPublisher();
    try {
      await expect(moduleRef.init()).rejects.toThrow(
        /needs the CQRS event bus's default in-memory publisher, but the host set BrokerPublisher/,
      );
    } finally {
      await moduleRef.close();
    }
  });
});
