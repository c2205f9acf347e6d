import { serverConfigFromEnv } from './server-config.js';

describe('serverConfigFromEnv', () => {
  it('has the defaults of spec §8 and generates an admin token when none is set', () => {
    const config = serverConfigFromEnv({});
    expect(config).toEqual({
      port: 3000,
      databaseUrl: 'sqlite:./data/process-notifications.db',
      adminToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      adminTokenGenerated: true,
      loopCapacity: 64,
      maxLoopsPerSession: 1000,
      maxStreamsPerSession: 16,
      maxAdminStreams: 64,
      journalTimeoutMs: 5000,
      retentionDays: 30,
      logLevel: 'info',
      leaseTtlMs: 10000,
      sseKeepAliveMs: 15000,
      console: true,
      apiDocs: false,
    });
    expect(serverConfigFromEnv({}).adminToken).not.toBe(config.adminToken);
  });

  it('reads every setting; empty means unset', () => {
    const adminToken = 'a'.repeat(32);
    expect(
      serverConfigFromEnv({
        PORT: '8080',
        PN_DATABASE_URL: 'sqlite::memory:',
        PN_ADMIN_TOKEN: adminToken,
        PN_LOOP_CAPACITY: '5',
        PN_MAX_LOOPS_PER_SESSION: '7',
        PN_MAX_STREAMS_PER_SESSION: '2',
        PN_MAX_ADMIN_STREAMS: '3',
        PN_JOURNAL_TIMEOUT_MS: '1500',
        PN_RETENTION_DAYS: '7',
        PN_LOG_LEVEL: 'debug',
        PN_NODE_URL: 'http://10.0.0.7:8080/',
        PN_LEASE_TTL_MS: '2500',
        PN_CONSOLE: 'off',
        PN_API_DOCS: 'on',
      }),
    ).toEqual({
      port: 8080,
      databaseUrl: 'sqlite::memory:',
      adminToken,
      adminTokenGenerated: false,
      loopCapacity: 5,
      maxLoopsPerSession: 7,
      maxStreamsPerSession: 2,
      maxAdminStreams: 3,
      journalTimeoutMs: 1500,
      retentionDays: 7,
      logLevel: 'debug',
      nodeUrl: 'http://10.0.0.7:8080',
      leaseTtlMs: 2500,
      sseKeepAliveMs: 15000,
      console: false,
      apiDocs: true,
    });
    expect(serverConfigFromEnv({ PORT: '', PN_DATABASE_URL: '', PN_ADMIN_TOKEN: '', PN_LOOP_CAPACITY: '' })).toMatchObject({
      port: 3000,
      databaseUrl: 'sqlite:./data/process-notifications.db',
      adminTokenGenerated: true,
      loopCapacity: 64,
    });
  });

  it.each([
    ['PORT', 'http'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['PN_LOOP_CAPACITY', '0'],
    ['PN_LOOP_CAPACITY', '1.5'],
    ['PN_LOOP_CAPACITY', 'many'],
    ['PN_MAX_LOOPS_PER_SESSION', '0'],
    ['PN_MAX_STREAMS_PER_SESSION', 'x'],
    ['PN_JOURNAL_TIMEOUT_MS', '5s'],
    ['PN_RETENTION_DAYS', '0'],
    ['PN_ADMIN_TOKEN', 'short-secret'],
    ['PN_ADMIN_TOKEN', `${'a'.repeat(32)} b`],
    ['PN_ADMIN_TOKEN', ` ${'a'.repeat(40)}`],
    ['PN_LOG_LEVEL', 'verbose'],
    ['PN_LOG_LEVEL', 'INFO'],
    ['PN_DATABASE_URL', 'mysql://x'],
    ['PN_DATABASE_URL', 'sqlite:'],
    ['PN_DATABASE_URL', './journal.db'],
    ['PN_LEASE_TTL_MS', '999'],
    ['PN_LEASE_TTL_MS', '10s'],
    ['PN_NODE_URL', 'node-2:3000'],
    ['PN_NODE_URL', 'https://node-2'],
    ['PN_NODE_URL', 'http://node-2/?x=1'],
    ['PN_CONSOLE', 'no'],
    ['PN_CONSOLE', 'OFF'],
    ['PN_MAX_ADMIN_STREAMS', '0'],
    ['PN_API_DOCS', 'yes'],
    ['PN_API_DOCS', 'ON'],
  ])('refuses %s=%s', (name, value) => {
    expect(() => serverConfigFromEnv({ [name]: value })).toThrow(name);
  });

  it('never shows a database password in its refusal', () => {
    expect(() => serverConfigFromEnv({ PN_DATABASE_URL: 'mysql://admin:s3cret@db/x' })).toThrow('PN_DATABASE_URL must be');
    expect(() => serverConfigFromEnv({ PN_DATABASE_URL: 'mysql://admin:s3cret@db/x' })).not.toThrow(/s3cret/);
  });
});
