/** What one HTTP row measured with autocannon over a fixed duration. */
export interface HttpResult {
  readonly requests: number;
  readonly seconds: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Responses by status code; a row whose responses are not all `expectedStatus` fails. */
  readonly statusCounts: Readonly<Record<string, number>>;
  readonly non2xx: number;
  /** Connection errors and timeouts. */
  readonly errors: number;
  /**
   * The server's busy event-loop time per answered request, in µs: its own cost per request,
   * which requests/s hides when the load generator is what saturates.
   */
  readonly serverUs?: number;
}

/** One line of the HTTP table: one route of the real server under load. */
export interface HttpRow {
  readonly id: string;
  readonly label: string;
  readonly database: string;
  readonly connections: number;
  /**
   * Id of the row this one is compared to: "x ceiling" is its time per request over the
   * ceiling's, "x ceiling, server" its server time per request (`serverUs`) over the ceiling's.
   */
  readonly ceiling?: string;
  /** Id of the framework-free floor of the same route (the "x floor" column: its requests/s over the floor's). */
  readonly floor?: string;
  run(): Promise<HttpResult>;
}
