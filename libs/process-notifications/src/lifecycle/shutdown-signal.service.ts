import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { ReplaySubject } from 'rxjs';

/** Emits once the module is being destroyed: this process's loops take nothing more. */
@Injectable()
export class ShutdownSignal implements OnModuleDestroy {
  private readonly stopping = new ReplaySubject<void>(1);

  /** Replays, so a caller that subscribes after the shutdown began hears it too. */
  readonly shutdown$ = this.stopping.asObservable();

  onModuleDestroy(): void {
    this.stopping.next();
    this.stopping.complete();
  }
}
