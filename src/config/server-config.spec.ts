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
    });
    expect(serverConfigFromEnv({}).adminToken).not.toBe(config.adminToken);
  });

  it('reads PORT, PN_DATABASE_URL, PN_ADMIN_TOKEN and PN_LOOP_CAPACITY; empty means unset', () => {
    expect(
      serverConfigFromEnv({ PORT: '8080', PN_DATABASE_URL: 'sqlite::memory:', PN_ADMIN_TOKEN: 'secret', PN_LOOP_CAPACITY: '5' }),
    ).toEqual({ port: 8080, databaseUrl: 'sqlite::memory:', adminToken: 'secret', adminTokenGenerated: false, loopCapacity: 5 });
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
  ])('refuses %s=%s', (name, value) => {
    expect(() => serverConfigFromEnv({ [name]: value })).toThrow(name);
  });
});
