import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import {
  AdminQueries,
  DeliveryStoppedError,
  DISPOSITIONS,
  LIFECYCLE_KINDS,
  ProcessNotificationsError,
  ProcessNotificationsService,
  type Disposition,
  type LifecycleKind,
} from 'nestjs-process-notifications';
import {
  ATTENTION_CONDITIONS,
  NODE_LIVENESS,
  STOPPED_DELIVERY_CAUSES,
  type NodeLiveness,
  type StoppedDeliveryCause,
} from 'process-notifications-contract';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Subscription } from 'rxjs';

/** Requests of one route and status not yet handed to the counter. */
interface HttpTally {
  readonly child: Counter.Internal;
  count: number;
}

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

  private readonly stoppedDeliveries = new Counter({
    name: 'pn_notifications_stopped_total',
    help: 'Completion notifications answered with disposition stopped, by cause.',
    labelNames: ['cause'] as const,
    registers: [this.registry],
  });

  private readonly lifecycleRecords = new Counter({
    name: 'pn_lifecycle_records_total',
    help: 'Lifecycle records journaled (identical retries not counted), by kind.',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });

  private readonly batchDeliveries = new Counter({
    name: 'pn_batch_deliveries_total',
    help: 'Notifications of batch deliveries answered, by the status of their own result (what the single route would have answered).',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });

  // Requests answered since the last scrape, by route and status: a request adds 1 to a number,
  // and the counter takes the sums when it is read. prom-client hashes the labels on every
  // increment, even of a child bound with `labels()`, which costs more than the increment.
  private readonly httpTallies = new Map<string, Map<string, HttpTally>>();

  private readonly httpRequests = new Counter({
    name: 'pn_http_requests_total',
    help: 'HTTP requests answered, by route template and status.',
    labelNames: ['route', 'status'] as const,
    registers: [this.registry],
    collect: () => {
      for (const byStatus of this.httpTallies.values()) {
        for (const tally of byStatus.values()) {
          if (tally.count === 0) continue;
          tally.child.inc(tally.count);
          tally.count = 0;
        }
      }
    },
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

  private readonly commits: Subscription;

  constructor(service: ProcessNotificationsService, admin: AdminQueries) {
    new Gauge({
      name: 'pn_pending_notifications',
      help: 'Notifications pending in the loops of this process (accepted, not yet consumed).',
      registers: [this.registry],
      // Read at scrape time from the library's running count: no scan of the loops.
      collect() {
        this.set(service.pendingCount);
      },
    });
    // Read from the database at scrape time, as the admin API reads them: every node of a cluster
    // reports the same cluster-wide counts. A failed read leaves no sample (unknown), not a stale one.
    new Gauge({
      name: 'pn_loops_needing_attention',
      help: 'Loops needing an operator, by condition: full, stopped with unconsumed work, stale (oldest unconsumed older than 300 s).',
      labelNames: ['condition'] as const,
      registers: [this.registry],
      async collect() {
        try {
          const counts = await admin.attentionCounts();
          for (const condition of ATTENTION_CONDITIONS) this.set({ condition }, counts[condition]);
        } catch {
          this.reset();
        }
      },
    });
    new Gauge({
      name: 'pn_nodes',
      help: 'Nodes of the cluster as GET /v1/admin/nodes lists them, by liveness (live: heartbeat not expired).',
      labelNames: ['liveness'] as const,
      registers: [this.registry],
      async collect() {
        try {
          const nodes = await admin.nodes();
          const counts: Record<NodeLiveness, number> = { live: 0, dead: 0 };
          for (const node of nodes) counts[node.live ? 'live' : 'dead'] += 1;
          for (const liveness of NODE_LIVENESS) this.set({ liveness }, counts[liveness]);
        } catch {
          this.reset();
        }
      },
    });
    // Every known label value from the start, at 0, so that rates work before the first event.
    for (const disposition of DISPOSITIONS) this.notifications.inc({ disposition }, 0);
    for (const kind of LIFECYCLE_KINDS) this.lifecycleRecords.inc({ kind }, 0);
    for (const cause of STOPPED_DELIVERY_CAUSES) this.stoppedDeliveries.inc({ cause }, 0);
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
    if (!(error instanceof ProcessNotificationsError) || !error.disposition) return;
    this.notifications.inc({ disposition: error.disposition });
    if (error.disposition !== 'stopped') return;
    // delivery_stopped by its cause; loop_not_found and unsupported_engine by their code.
    const cause = error instanceof DeliveryStoppedError ? error.stopCause : error.code;
    if ((STOPPED_DELIVERY_CAUSES as readonly string[]).includes(cause))
      this.stoppedDeliveries.inc({ cause: cause as StoppedDeliveryCause });
  }

  /**
   * Counts the notifications of a batch delivery by their results' statuses: the batch request itself
   * answers 200, so a journal outage (503) shows here, where the single route's shows in
   * `pn_http_requests_total`.
   */
  countBatchDeliveries(results: ReadonlyArray<{ readonly status: number }>): void {
    // One increment per status, not per notification: prom-client hashes the labels on each.
    const counts = new Map<number, number>();
    for (const { status } of results) counts.set(status, (counts.get(status) ?? 0) + 1);
    for (const [status, count] of counts) this.batchDeliveries.inc({ status: String(status) }, count);
  }

  /** Counts a lifecycle record the journal took for the first time. */
  countLifecycleRecord(kind: LifecycleKind): void {
    this.lifecycleRecords.inc({ kind });
  }

  /** Counts an answered HTTP request; `route` is a template, never a path. */
  countHttpRequest(route: string, status: string): void {
    let byStatus = this.httpTallies.get(route);
    if (!byStatus) this.httpTallies.set(route, (byStatus = new Map()));
    const tally = byStatus.get(status);
    if (tally) tally.count += 1;
    else byStatus.set(status, { child: this.httpRequests.labels(route, status), count: 1 });
  }

  /** The metrics in Prometheus text format. */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  onModuleDestroy(): void {
    this.commits.unsubscribe();
  }
}
