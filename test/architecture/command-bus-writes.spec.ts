import { writesOffTheBus } from './command-bus-writes.js';
import { scratchTree } from './scratch-tree.js';

const LIBRARY = 'libs/process-notifications/src';

/**
 * The public methods of `ProcessNotificationsService` (its journal half included) that write
 * nothing: each answers from memory or the database, or hands out a stream.
 */
const READS = [
  'getSession',
  'getLoop',
  'requireSession',
  'authenticate',
  'locateOwner',
  'pendingNotifications',
  'processOutcomes',
  'readJournal',
  'loopEventsStart',
  'readLoopEvents',
  'readSessionLoopEvents',
  'readLoopStreams',
  'loopChanges',
  'isHealthy',
  'journalChanges',
  'journalChangedSessions',
  'recordsOf',
];

/**
 * Every write the same way (issue 49): a write of the service (open, rotate, close a session;
 * open, stop a loop; deliver, publish, consume; prune the journal, advertise the node, release its
 * sessions) is one command on the CQRS command bus, so it has
 * one path for tracing, validation and error mapping and a handler that can be tested alone.
 */
describe('command bus writes', () => {
  it('ProcessNotificationsService writes only through this.commandBus.execute', () => {
    expect(writesOffTheBus(LIBRARY, 'process-notifications.service.ts', 'ProcessNotificationsService', READS)).toEqual([]);
  });

  describe('the check itself', () => {
    const tree = scratchTree('pn-command-bus-writes-');

    it('finds a write that calls a collaborator, with or without async, and one that does both', () => {
      tree.write(
        'service.ts',
        [
          'export class Service {',
          '  constructor(private readonly commandBus: CommandBus, private readonly sessions: Sessions) {}',
          '  open(id: string): Promise<View> { return this.commandBus.execute(new OpenCommand(id)); }',
          '  async close(id: string): Promise<void> { await this.sessions.close(id); }',
          '  rotate(id: string): Promise<string> { return this.sessions.rotate(id); }',
          '  async stop(id: string) { await this.sessions.find(id); return this.commandBus.execute(new StopCommand(id)); }',
          '  find(id: string): Promise<View> { return this.sessions.find(id); }',
          '  private async hidden(): Promise<void> { await this.sessions.close("x"); }',
          '  protected helper(): void { this.sessions.close("x"); }',
          '  get count(): number { return this.sessions.size; }',
          '}',
        ].join('\n'),
      );
      expect(writesOffTheBus(tree.root(), 'service.ts', 'Service', ['find'])).toEqual([
        'close (service.ts:4): not a listed read, and it calls no this.commandBus.execute',
        'rotate (service.ts:5): not a listed read, and it calls no this.commandBus.execute',
        'stop (service.ts:6): calls this.commandBus.execute but also this.sessions',
      ]);
    });

    it('does not take a mention of the bus, or another call on it, for a command sent', () => {
      tree.write(
        'service.ts',
        [
          'export class Service {',
          '  bus(): CommandBus { return this.commandBus; }',
          '  open(): void { this.commandBus.register([]); }',
          '  later() { const execute = () => this.commandBus; return execute; }',
          '}',
        ].join('\n'),
      );
      expect(writesOffTheBus(tree.root(), 'service.ts', 'Service', [])).toEqual([
        'bus (service.ts:2): not a listed read, and it calls no this.commandBus.execute',
        'open (service.ts:3): not a listed read, and it calls no this.commandBus.execute',
        'later (service.ts:4): not a listed read, and it calls no this.commandBus.execute',
      ]);
    });

    it('checks the base class through its relative import, an override hiding the base method', () => {
      tree.write(
        'api/base.ts',
        [
          'export abstract class Base {',
          '  read(): Promise<number> { return this.store.count(); }',
          '  write(): Promise<void> { return this.store.insert(); }',
          '  replaced(): Promise<void> { return this.store.insert(); }',
          '}',
        ].join('\n'),
      );
      tree.write(
        'service.ts',
        [
          "import { Base } from './api/base.js';",
          'export class Service extends Base {',
          '  override replaced(): Promise<void> { return this.commandBus.execute(new Command()); }',
          '}',
        ].join('\n'),
      );
      expect(writesOffTheBus(tree.root(), 'service.ts', 'Service', ['read'])).toEqual([
        'write (api/base.ts:3): not a listed read, and it calls no this.commandBus.execute',
      ]);
    });

    it('names a listed read that no longer exists, so the list cannot outlive the service', () => {
      tree.write('service.ts', 'export class Service {\n  get(): Promise<number> { return this.store.count(); }\n}\n');
      expect(writesOffTheBus(tree.root(), 'service.ts', 'Service', ['get', 'gone'])).toEqual([
        'gone: listed, but Service has no public method of that name',
      ]);
    });
  });
});
