import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import {
  LIFECYCLE_KINDS,
  ProcessNotificationsError,
  ProcessNotificationsService,
  type Disposition,
  type LifecycleKind,
} from 'nestjs-process-notifications';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Subscription } from 'rxjs';

const DISPOSITIONS: readonly Disposition[] = ['accepted', 'duplicate', 'stopped', 'collision'];

/**
 * The server's Prometheus metrics (spec section 11), in a registry of its own so that several
 * apps in one process do not share counters. Labels never carry a session, loop or command id.
 */
@Injectable()
export class MetricsService implements OnModuleDestroy {
  readonly registry = new Registry();

  private readonly notifications = new Counter({
    name: 'pn_notifications_total',
    help: 'Completion notifications answered, by disposition.',
    labelNames: ['disposition'] as const,
    registers: [this.registry],
  });

  private readonly lifecycleRecords = new Counter({
    name: 'pn_lifecycle_records_total',
    help: 'Lifecycle records journaled (identical retries not counted), by kind.',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });

  private readonly httpRequests = new Counter({
    name: 'pn_http_requests_total',
    help: 'HTTP requests answered, by route template and status.',
    labelNames: ['route', 'status'] as const,
    registers: [this.registry],
  });

  private readonly commitSeconds = new Histogram({
    name: 'pn_journal_commit_seconds',
    help: 'Duration of one journal transaction, from BEGIN to the end of COMMIT.',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  private readonly batchSize = new Histogram({
    name: 'pn_journal_batch_size',
    help: 'Units of work committed together in one journal transaction (group commit).',
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
    registers: [this.registry],
  });

  // Children of pn_http_requests_total, one per route and status, bound once: a label lookup
  // per request costs more than the increment.
  private readonly httpRequestsBy = new Map<string, Map<string, Counter.Internal>>();

  private readonly commits: Subscription;

  constructor(service: ProcessNotificationsService) {
    new Gauge({
      name: 'pn_pending_notifications',
      help: 'Notifications pending in the loops of this process (accepted, not yet consumed).',
      registers: [this.registry],
      // Read at scrape time from the library's running count: no scan of the loops.
      collect() {
        this.set(service.pendingCount);
      },
    });
    // Every known label value from the start, at 0, so that rates work before the first event.
    for (const disposition of DISPOSITIONS) this.notifications.inc({ disposition }, 0);
    for (const kind of LIFECYCLE_KINDS) this.lifecycleRecords.inc({ kind }, 0);
    collectDefaultMetrics({ register: this.registry });
    this.commits = service.journalCommits$.subscribe(({ size, seconds }) => {
      this.commitSeconds.observe(seconds);
      this.batchSize.observe(size);
    });
  }

  /** Counts a delivery's answer: `accepted` or `duplicate`. */
  countDelivery(disposition: Disposition): void {
    this.notifications.inc({ disposition });
  }

  /** Counts a refused delivery by its disposition (`stopped`, `collision`); other failures have none. */
  countRefusedDelivery(error: unknown): void {
    if (error instanceof ProcessNotificationsError && error.disposition) this.notifications.inc({ disposition: error.disposition });
  }

  /** Counts a lifecycle record the journal took for the first time. */
  countLifecycleRecord(kind: LifecycleKind): void {
    this.lifecycleRecords.inc({ kind });
  }

  /** Counts an answered HTTP request; `route` is a template, never a path. */
  countHttpRequest(route: string, status: string): void {
    let byStatus = this.httpRequestsBy.get(route);
    if (!byStatus) this.httpRequestsBy.set(route, (byStatus = new Map()));
    let child = byStatus.get(status);
    if (!child) byStatus.set(status, (child = this.httpRequests.labels(route, status)));
    child.inc();
  }

  /** The metrics in Prometheus text format. */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  onModuleDestroy(): void {
    this.commits.unsubscribe();
  }
}
