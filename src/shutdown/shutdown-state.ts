import { Injectable } from '@nestjs/common';

/**
 * Whether this process has begun to shut down (GracefulShutdown marks it the moment the signal
 * arrives), for what must answer differently from then on, such as `/healthz`.
 */
@Injectable()
export class ShutdownState {
  private started = false;

  /** True from the moment the shutdown began. */
  get shuttingDown(): boolean {
    return this.started;
  }

  /** Marks the shutdown as begun; there is no way back. */
  begin(): void {
    this.started = true;
  }
}
